/**
 * The method catalog: every MCP method once, with its direction, the params and
 * result schemas of each revision that has it, and what the rest of the library
 * needs to know about it (may it answer `input_required`, is its result cacheable,
 * is it paginated, which capability gates it, which notifications go with it).
 *
 * The server's dispatch tables, the client's typed requests, error mapping and the
 * tests all derive from this table: a revision difference is a row here, not an `if`.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Issues from "./internal/issues.js"
import { completion } from "./internal/schema/completion.js"
import { discovery } from "./internal/schema/discovery.js"
import { elicitation } from "./internal/schema/elicitation.js"
import { lifecycle } from "./internal/schema/lifecycle.js"
import { prompt } from "./internal/schema/prompt.js"
import { resource } from "./internal/schema/resource.js"
import { roots } from "./internal/schema/roots.js"
import { sampling } from "./internal/schema/sampling.js"
import { extensionId as skillsExtensionId, skills as skillsSchemas } from "./internal/schema/skills.js"
import { subscription } from "./internal/schema/subscription.js"
import { tasks } from "./internal/schema/tasks.js"
import { extensionId as tasksExtensionId, tasksExtension as tasksSchemas } from "./internal/schema/tasksExtension.js"
import { tool, toolLegacy } from "./internal/schema/tool.js"
import {
  deferred,
  deferredNotification,
  deferredShape,
  modern,
  modernCacheable,
  modernNotification,
  modernOwn,
  modernRetryable,
  union
} from "./internal/shapes.js"
import * as McpError from "./McpError.js"
import * as Revision from "./Revision.js"
import * as Base from "./Schema/Base.js"
import * as Logging from "./Schema/Logging.js"
import * as Stateless from "./Schema/Stateless.js"

/**
 * Who sends the message: the client (to the server), the server (to the client), or either.
 *
 * @since 0.1.0
 * @category models
 */
export type Direction = "client" | "server" | "both"

/**
 * The schemas of a method in a set of revisions.
 *
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  readonly revisions: ReadonlyArray<Revision.Revision>
  readonly params: Schema.Schema<any, any>
  /** `params` may be absent from the message (then `{}` is decoded). */
  readonly paramsOptional: boolean
  /** The result schema; `undefined` for notifications. */
  readonly result: Schema.Schema<any, any> | undefined
}

/**
 * Which capability gates a method: a top-level key of the server's (for methods the
 * client sends) or the client's (for methods the server sends) capabilities.
 *
 * @since 0.1.0
 * @category models
 */
export interface Capability {
  readonly side: "server" | "client"
  readonly key: string
}

/**
 * One method of the catalog.
 *
 * @since 0.1.0
 * @category models
 */
export interface Definition<Name extends string = string> {
  readonly name: Name
  readonly kind: "request" | "notification"
  readonly direction: Direction
  readonly shapes: ReadonlyArray<Shape>
  /** Every revision that has this method. */
  readonly revisions: ReadonlyArray<Revision.Revision>
  /** 2026-07-28: may answer with an `input_required` result. */
  readonly inputRequired: boolean
  /** 2026-07-28: its complete result carries `ttlMs` / `cacheScope`. */
  readonly cacheable: boolean
  /** Takes `cursor`, returns `nextCursor`. */
  readonly paginated: boolean
  /** Served before `notifications/initialized` in the handshake era. */
  readonly beforeInitialized: boolean
  /**
   * A request that `notifications/cancelled` may cancel (every request but `initialize`). A caller
   * that gives up on a request that is not cancellable sends nothing; a receiver ignores the cancel.
   */
  readonly cancellable: boolean
  /** The capability that must be declared for this method to be used. */
  readonly capability: Capability | undefined
  /** The extension that provides it (2026-07-28), if any. */
  readonly extension: string | undefined
  /** Related notifications (for requests) or the requests they relate to (for notifications). */
  readonly related: ReadonlyArray<string>
}

interface ShapeInput {
  readonly revisions: ReadonlyArray<Revision.Revision>
  readonly params: Schema.Schema<any, any>
  readonly paramsOptional?: boolean
  readonly result?: Schema.Schema<any, any>
}

interface Options {
  readonly inputRequired?: boolean
  readonly cacheable?: boolean
  readonly paginated?: boolean
  readonly beforeInitialized?: boolean
  readonly cancellable?: boolean
  readonly capability?: Capability
  readonly extension?: string
  readonly related?: ReadonlyArray<string>
}

/**
 * A definition together with the precise types of its shapes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Typed<
  Name extends string,
  S extends ReadonlyArray<ShapeInput>,
  Kind extends "request" | "notification" = "request" | "notification",
  Dir extends Direction = Direction
> extends Definition<Name> {
  readonly typedShapes: S
  readonly kind: Kind
  readonly direction: Dir
}

const define = <
  const Name extends string,
  const Kind extends "request" | "notification",
  const Dir extends Direction,
  const S extends ReadonlyArray<ShapeInput>
>(
  name: Name,
  kind: Kind,
  direction: Dir,
  options: Options,
  shapes: S
): Typed<Name, S, Kind, Dir> => ({
  name,
  kind,
  direction,
  // Getters: a shape's schemas are read (and the derived ones built) only when the method is first used.
  shapes: shapes.map((s): Shape => ({
    revisions: s.revisions,
    get params() {
      return s.params
    },
    paramsOptional: s.paramsOptional ?? false,
    get result() {
      return s.result
    }
  })),
  typedShapes: shapes,
  revisions: Revision.all.filter((r) => shapes.some((s) => s.revisions.includes(r))),
  inputRequired: options.inputRequired ?? false,
  cacheable: options.cacheable ?? false,
  paginated: options.paginated ?? false,
  beforeInitialized: options.beforeInitialized ?? false,
  cancellable: kind === "request" && (options.cancellable ?? true),
  capability: options.capability,
  extension: options.extension,
  related: options.related ?? []
})

// Revision sets used below.
const handshake = Revision.handshake
const stateless = Revision.stateless
const since = (r: Revision.Revision) => Revision.range(r, Revision.latestHandshake)
const only = (r: Revision.Revision): ReadonlyArray<Revision.Revision> => [r]

const serverCap = (key: string): Capability => ({ side: "server", key })
const clientCap = (key: string): Capability => ({ side: "client", key })

const tasksExtension = tasksExtensionId
const skillsExtension = skillsExtensionId

/**
 * Every MCP method, keyed by name.
 *
 * @since 0.1.0
 * @category catalog
 */
export const catalog = {
  // ---------------------------------------------------------------- lifecycle
  "initialize": define("initialize", "request", "client", { beforeInitialized: true, cancellable: false }, [
    {
      revisions: handshake,
      get params() {
        return lifecycle().InitializeRequestParams
      },
      get result() {
        return lifecycle().InitializeResult
      }
    }
  ]),
  "ping": define("ping", "request", "both", { beforeInitialized: true }, [
    {
      revisions: handshake,
      get params() {
        return lifecycle().PingRequestParams
      },
      paramsOptional: true,
      get result() {
        return Base.EmptyResult
      }
    }
  ]),
  "server/discover": define("server/discover", "request", "client", { cacheable: true }, [
    {
      revisions: stateless,
      get params() {
        return discovery().DiscoverRequestParams
      },
      get result() {
        return discovery().DiscoverResult
      }
    }
  ]),
  "notifications/initialized": define(
    "notifications/initialized",
    "notification",
    "client",
    { beforeInitialized: true },
    [{
      revisions: handshake,
      get params() {
        return lifecycle().InitializedNotificationParams
      },
      paramsOptional: true
    }]
  ),
  "notifications/cancelled": define("notifications/cancelled", "notification", "both", { beforeInitialized: true }, [
    {
      revisions: Revision.range("2024-11-05", "2025-06-18"),
      get params() {
        return lifecycle().CancelledNotificationParams
      }
    },
    {
      revisions: only("2025-11-25"),
      get params() {
        return lifecycle().CancelledNotificationParams20251125
      }
    },
    modernNotification(() => lifecycle().CancelledNotificationParams)
  ]),
  "notifications/progress": define("notifications/progress", "notification", "both", { beforeInitialized: true }, [
    {
      revisions: handshake,
      get params() {
        return lifecycle().ProgressNotificationParams
      }
    },
    modernNotification(() => lifecycle().ProgressNotificationParams)
  ]),

  // ---------------------------------------------------------------- tools
  "tools/list": define("tools/list", "request", "client", {
    cacheable: true,
    paginated: true,
    capability: serverCap("tools"),
    related: ["notifications/tools/list_changed"]
  }, [
    {
      revisions: Revision.range("2024-11-05", "2025-03-26"),
      get params() {
        return tool().ListToolsRequestParams
      },
      paramsOptional: true,
      get result() {
        return tool().ListToolsResult
      }
    },
    {
      revisions: since("2025-06-18"),
      get params() {
        return tool().ListToolsRequestParams
      },
      paramsOptional: true,
      get result() {
        return toolLegacy().ListToolsResult20250618
      }
    },
    modernCacheable(() => tool().ListToolsRequestParams, () => tool().ListToolsResult)
  ]),
  "tools/call": define("tools/call", "request", "client", {
    inputRequired: true,
    capability: serverCap("tools")
  }, [
    {
      revisions: only("2024-11-05"),
      get params() {
        return tool().CallToolRequestParams
      },
      get result() {
        return toolLegacy().CallToolResult20241105
      }
    },
    {
      revisions: only("2025-03-26"),
      get params() {
        return tool().CallToolRequestParams
      },
      get result() {
        return toolLegacy().CallToolResult20250326
      }
    },
    {
      revisions: only("2025-06-18"),
      get params() {
        return tool().CallToolRequestParams
      },
      get result() {
        return toolLegacy().CallToolResult20250618
      }
    },
    union(
      only("2025-11-25"),
      () => tool().CallToolRequestParams,
      () => [toolLegacy().CallToolResult20250618, tasks().CreateTaskResult]
    ),
    modernRetryable(
      () => tool().CallToolRequestParams,
      () =>
        [
          Stateless.result(tool().CallToolResult),
          deferred(() => tasksSchemas().CreateTaskResult, { identifier: "CreateTaskResult", tag: "task" })
        ] as const
    )
  ]),
  "notifications/tools/list_changed": define(
    "notifications/tools/list_changed",
    "notification",
    "server",
    { capability: serverCap("tools"), related: ["tools/list"] },
    [
      {
        revisions: handshake,
        get params() {
          return tool().ToolListChangedNotificationParams
        },
        paramsOptional: true
      },
      modernNotification(() => tool().ToolListChangedNotificationParams, true)
    ]
  ),

  // ---------------------------------------------------------------- resources
  "resources/list": define("resources/list", "request", "client", {
    cacheable: true,
    paginated: true,
    capability: serverCap("resources"),
    related: ["notifications/resources/list_changed"]
  }, [
    {
      revisions: handshake,
      get params() {
        return resource().ListResourcesRequestParams
      },
      paramsOptional: true,
      get result() {
        return resource().ListResourcesResult
      }
    },
    modernCacheable(() => resource().ListResourcesRequestParams, () => resource().ListResourcesResult)
  ]),
  "resources/templates/list": define("resources/templates/list", "request", "client", {
    cacheable: true,
    paginated: true,
    capability: serverCap("resources"),
    related: ["notifications/resources/list_changed"]
  }, [
    {
      revisions: handshake,
      get params() {
        return resource().ListResourceTemplatesRequestParams
      },
      paramsOptional: true,
      get result() {
        return resource().ListResourceTemplatesResult
      }
    },
    modernCacheable(
      () => resource().ListResourceTemplatesRequestParams,
      () => resource().ListResourceTemplatesResult
    )
  ]),
  "resources/read": define("resources/read", "request", "client", {
    inputRequired: true,
    cacheable: true,
    capability: serverCap("resources"),
    related: ["notifications/resources/updated"]
  }, [
    {
      revisions: handshake,
      get params() {
        return resource().ReadResourceRequestParams
      },
      get result() {
        return resource().ReadResourceResult
      }
    },
    modernRetryable(
      () => resource().ReadResourceRequestParams,
      () => [Stateless.cacheableResult(resource().ReadResourceResult)] as const
    )
  ]),
  "resources/subscribe": define("resources/subscribe", "request", "client", {
    capability: serverCap("resources"),
    related: ["notifications/resources/updated"]
  }, [{
    revisions: handshake,
    get params() {
      return resource().SubscribeRequestParams
    },
    get result() {
      return Base.EmptyResult
    }
  }]),
  "resources/unsubscribe": define("resources/unsubscribe", "request", "client", {
    capability: serverCap("resources"),
    related: ["notifications/resources/updated"]
  }, [{
    revisions: handshake,
    get params() {
      return resource().UnsubscribeRequestParams
    },
    get result() {
      return Base.EmptyResult
    }
  }]),
  "notifications/resources/list_changed": define(
    "notifications/resources/list_changed",
    "notification",
    "server",
    { capability: serverCap("resources"), related: ["resources/list", "resources/templates/list"] },
    [
      {
        revisions: handshake,
        get params() {
          return resource().ResourceListChangedNotificationParams
        },
        paramsOptional: true
      },
      modernNotification(() => resource().ResourceListChangedNotificationParams, true)
    ]
  ),
  "notifications/resources/updated": define(
    "notifications/resources/updated",
    "notification",
    "server",
    {
      capability: serverCap("resources"),
      related: ["resources/read", "resources/subscribe", "subscriptions/listen"]
    },
    [
      {
        revisions: handshake,
        get params() {
          return resource().ResourceUpdatedNotificationParams
        }
      },
      modernNotification(() => resource().ResourceUpdatedNotificationParams)
    ]
  ),

  // ---------------------------------------------------------------- subscriptions (2026-07-28)
  "subscriptions/listen": define("subscriptions/listen", "request", "client", {
    related: [
      "notifications/subscriptions/acknowledged",
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
      "notifications/resources/list_changed",
      "notifications/resources/updated"
    ]
  }, [
    deferredShape(
      stateless,
      () => subscription().SubscriptionsListenRequestParams,
      () => subscription().SubscriptionsListenResult
    )
  ]),
  "notifications/subscriptions/acknowledged": define(
    "notifications/subscriptions/acknowledged",
    "notification",
    "server",
    { related: ["subscriptions/listen"] },
    [deferredNotification(stateless, () => subscription().SubscriptionsAcknowledgedNotificationParams)]
  ),

  // ---------------------------------------------------------------- prompts
  "prompts/list": define("prompts/list", "request", "client", {
    cacheable: true,
    paginated: true,
    capability: serverCap("prompts"),
    related: ["notifications/prompts/list_changed"]
  }, [
    {
      revisions: handshake,
      params: Base.PaginatedRequestParams,
      paramsOptional: true,
      get result() {
        return prompt().ListPromptsResult
      }
    },
    modernCacheable(() => Base.PaginatedRequestParams, () => prompt().ListPromptsResult)
  ]),
  "prompts/get": define("prompts/get", "request", "client", {
    inputRequired: true,
    capability: serverCap("prompts")
  }, [
    deferredShape(
      only("2024-11-05"),
      () => prompt().GetPromptRequestParams,
      () => prompt().GetPromptResult20241105
    ),
    deferredShape(
      only("2025-03-26"),
      () => prompt().GetPromptRequestParams,
      () => prompt().GetPromptResult20250326
    ),
    deferredShape(since("2025-06-18"), () => prompt().GetPromptRequestParams, () => prompt().GetPromptResult),
    modernRetryable(
      () => prompt().GetPromptRequestParams,
      () => [Stateless.result(prompt().GetPromptResult)] as const
    )
  ]),
  "notifications/prompts/list_changed": define(
    "notifications/prompts/list_changed",
    "notification",
    "server",
    { capability: serverCap("prompts"), related: ["prompts/list"] },
    [
      { revisions: handshake, params: Base.NotificationParams, paramsOptional: true },
      modernNotification(() => Base.NotificationParams, true)
    ]
  ),

  // ---------------------------------------------------------------- completion
  "completion/complete": define("completion/complete", "request", "client", {
    capability: serverCap("completions")
  }, [
    deferredShape(handshake, () => completion().CompleteRequestParams, () => completion().CompleteResult),
    modern(() => completion().CompleteRequestParams, () => completion().CompleteResult)
  ]),

  // ---------------------------------------------------------------- logging
  "logging/setLevel": define("logging/setLevel", "request", "client", { capability: serverCap("logging") }, [
    { revisions: handshake, params: Logging.SetLevelRequestParams, result: Base.EmptyResult }
  ]),
  "notifications/message": define(
    "notifications/message",
    "notification",
    "server",
    { beforeInitialized: true, capability: serverCap("logging") },
    [
      { revisions: handshake, params: Logging.LoggingMessageNotificationParams },
      modernNotification(() => Logging.LoggingMessageNotificationParams)
    ]
  ),

  // ---------------------------------------------------------------- sampling (server → client; 2026: input request)
  "sampling/createMessage": define("sampling/createMessage", "request", "server", {
    capability: clientCap("sampling")
  }, [
    deferredShape(
      only("2024-11-05"),
      () => sampling().CreateMessageRequestParams20241105,
      () => sampling().CreateMessageResult20241105
    ),
    deferredShape(
      Revision.range("2025-03-26", "2025-06-18"),
      () => sampling().CreateMessageRequestParams20250326,
      () => sampling().CreateMessageResult20250326
    ),
    deferredShape(
      only("2025-11-25"),
      () => sampling().CreateMessageRequestParams20251125,
      () => Schema.Union(sampling().CreateMessageResult20251125, tasks().CreateTaskResult)
    )
  ]),

  // ---------------------------------------------------------------- roots (server → client; 2026: input request)
  "roots/list": define("roots/list", "request", "server", {
    capability: clientCap("roots"),
    related: ["notifications/roots/list_changed"]
  }, [
    {
      revisions: handshake,
      get params() {
        return roots().ListRootsRequestParams
      },
      paramsOptional: true,
      get result() {
        return roots().ListRootsResult
      }
    }
  ]),
  "notifications/roots/list_changed": define(
    "notifications/roots/list_changed",
    "notification",
    "client",
    { capability: clientCap("roots"), related: ["roots/list"] },
    [{
      revisions: handshake,
      get params() {
        return roots().RootsListChangedNotificationParams
      },
      paramsOptional: true
    }]
  ),

  // ---------------------------------------------------------------- elicitation (server → client; 2026: input request)
  "elicitation/create": define("elicitation/create", "request", "server", {
    capability: clientCap("elicitation")
  }, [
    deferredShape(
      only("2025-06-18"),
      () => elicitation().ElicitRequestParams20250618,
      () => elicitation().ElicitResult20250618
    ),
    deferredShape(
      only("2025-11-25"),
      () => elicitation().ElicitRequestParams20251125,
      () => Schema.Union(elicitation().ElicitResult, tasks().CreateTaskResult)
    )
  ]),
  "notifications/elicitation/complete": define(
    "notifications/elicitation/complete",
    "notification",
    "server",
    { capability: clientCap("elicitation"), related: ["elicitation/create"] },
    [deferredNotification(only("2025-11-25"), () => elicitation().ElicitationCompleteNotificationParams)]
  ),

  // ---------------------------------------------------------------- tasks
  "tasks/get": define("tasks/get", "request", "both", { extension: tasksExtension }, [
    {
      revisions: only("2025-11-25"),
      get params() {
        return tasks().GetTaskRequestParams
      },
      get result() {
        return tasks().GetTaskResult
      }
    },
    modernOwn(() => tasksSchemas().GetTaskRequestParams, () => tasksSchemas().GetTaskResult)
  ]),
  "tasks/result": define("tasks/result", "request", "both", {}, [
    {
      revisions: only("2025-11-25"),
      get params() {
        return tasks().GetTaskPayloadRequestParams
      },
      get result() {
        return tasks().GetTaskPayloadResult
      }
    }
  ]),
  "tasks/list": define("tasks/list", "request", "both", { paginated: true }, [
    {
      revisions: only("2025-11-25"),
      get params() {
        return tasks().ListTasksRequestParams
      },
      paramsOptional: true,
      get result() {
        return tasks().ListTasksResult
      }
    }
  ]),
  "tasks/cancel": define("tasks/cancel", "request", "both", { extension: tasksExtension }, [
    {
      revisions: only("2025-11-25"),
      get params() {
        return tasks().CancelTaskRequestParams
      },
      get result() {
        return tasks().CancelTaskResult
      }
    },
    modernOwn(() => tasksSchemas().CancelTaskRequestParams, () => tasksSchemas().CancelTaskResult)
  ]),
  "tasks/update": define("tasks/update", "request", "client", { extension: tasksExtension }, [
    modernOwn(() => tasksSchemas().UpdateTaskRequestParams, () => tasksSchemas().UpdateTaskResult)
  ]),
  "notifications/tasks/status": define("notifications/tasks/status", "notification", "both", {}, [
    {
      revisions: only("2025-11-25"),
      get params() {
        return tasks().TaskStatusNotificationParams
      }
    }
  ]),
  "notifications/tasks": define(
    "notifications/tasks",
    "notification",
    "server",
    { extension: tasksExtension, related: ["subscriptions/listen"] },
    [deferredNotification(stateless, () => tasksSchemas().TaskStatusNotificationParams)]
  ),

  // ---------------------------------------------------------------- skills (extension, SEP-2640)
  // The extension targets 2026-07-28; a handshake session may use it too (the methods are the
  // same, without the envelope), as hosts of 2025-11-25 servers that declare it do.
  "skills/list": define("skills/list", "request", "client", {
    cacheable: true,
    paginated: true,
    capability: serverCap("resources"),
    extension: skillsExtension
  }, [
    {
      revisions: handshake,
      params: Base.PaginatedRequestParams,
      paramsOptional: true,
      get result() {
        return skillsSchemas().ListSkillsResult
      }
    },
    modernCacheable(() => Base.PaginatedRequestParams, () => skillsSchemas().ListSkillsResult)
  ]),
  "skills/get": define("skills/get", "request", "client", {
    cacheable: true,
    capability: serverCap("resources"),
    extension: skillsExtension
  }, [
    deferredShape(handshake, () => skillsSchemas().GetSkillRequestParams, () => skillsSchemas().GetSkillResult),
    modernCacheable(() => skillsSchemas().GetSkillRequestParams, () => skillsSchemas().GetSkillResult)
  ]),
  "resources/directory/read": define("resources/directory/read", "request", "client", {
    cacheable: true,
    paginated: true,
    capability: serverCap("resources"),
    extension: skillsExtension
  }, [
    deferredShape(
      handshake,
      () => skillsSchemas().ReadResourceDirectoryRequestParams,
      () => skillsSchemas().ReadResourceDirectoryResult
    ),
    // The extension does not require the caching hints: our servers write them, a peer may not.
    modern(
      () => skillsSchemas().ReadResourceDirectoryRequestParams,
      () => Schema.Struct({ ...skillsSchemas().ReadResourceDirectoryResult.fields, ...Stateless.optionalCacheFields })
    )
  ])
} as const

/**
 * Every method name.
 *
 * @since 0.1.0
 * @category models
 */
export type Name = keyof typeof catalog

/**
 * The requests `side` sends: those of its direction and those of both.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestSentBy<Side extends "client" | "server"> = {
  [M in Name]: (typeof catalog)[M]["kind"] extends "request"
    ? (typeof catalog)[M]["direction"] extends Side | "both" ? M : never
    : never
}[Name]

/**
 * The decoded params of a method (the union over the revisions that have it).
 *
 * @since 0.1.0
 * @category models
 */
export type Params<M extends Name> = Schema.Schema.Type<(typeof catalog)[M]["typedShapes"][number]["params"]>

/**
 * The result of a method (the union over the revisions that have it).
 *
 * @since 0.1.0
 * @category models
 */
export type Result<M extends Name> = (typeof catalog)[M]["typedShapes"][number] extends infer S
  ? S extends { readonly result: Schema.Schema<infer A, any> } ? A : never
  : never

/**
 * Every definition, in catalog order.
 *
 * @since 0.1.0
 * @category catalog
 */
export const definitions: ReadonlyArray<Definition> = Object.values(catalog)

/**
 * The definition of `method`, if the catalog has it (in any revision).
 *
 * @since 0.1.0
 * @category catalog
 */
export const definition = (method: string): Definition | undefined =>
  Object.hasOwn(catalog, method) ? (catalog as Record<string, Definition>)[method] : undefined

/**
 * May a request of `method` be cancelled? Unknown methods may (they are answered at once anyway).
 *
 * @since 0.1.0
 * @category catalog
 */
export const isCancellable = (method: string): boolean => definition(method)?.cancellable ?? true

/**
 * The definition of one method in one revision: the schemas that revision uses, compiled into
 * codecs for both directions. Every codec returns an `Either`: nothing throws.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry<P = unknown, A = unknown> {
  readonly definition: Definition
  readonly shape: Shape
  /** Wire params → params (absent params decode as `{}` where they are optional); `InvalidParams` otherwise. */
  readonly decodeParams: (params: unknown) => Either.Either<P, McpError.InvalidParams>
  /** Params → wire params (for a request or notification we send). */
  readonly encodeParams: (params: P) => Either.Either<unknown, ParseResult.ParseError>
  /** Result → wire result (undefined for notifications). */
  readonly encodeResult: ((result: A) => Either.Either<unknown, ParseResult.ParseError>) | undefined
  /** Wire result → result, for a result received from the peer (undefined for notifications). */
  readonly decodeResult: ((result: unknown) => Either.Either<A, ParseResult.ParseError>) | undefined
}

/**
 * A readable description of a schema failure. Formatting a value nested thousands deep
 * overflows the stack: that is bad input, still not a bug.
 *
 * @since 0.1.0
 * @category errors
 */
export const describeError = (error: unknown): string => {
  try {
    return ParseResult.isParseError(error)
      ? Issues.describe(error)
      : error instanceof Error
      ? error.message
      : String(error)
  } catch {
    return "the value does not match the schema (too deeply nested to describe)"
  }
}

/** A codec compiled on its first use: a server starts without compiling what it never serves. */
const lazily = <A, B>(make: () => (a: A) => B): (a: A) => B => {
  let compiled: ((a: A) => B) | undefined
  return (a) => (compiled ??= make())(a)
}

const makeEntry = (definition: Definition, shape: Shape): Entry => {
  const decode = lazily(() => Base.codec(shape.params, "decode", Base.parseOptions))
  const optional = shape.paramsOptional
  const name = definition.name
  // A request has a result schema, a notification none: read (and built) on first use.
  const request = definition.kind === "request"
  return {
    definition,
    shape,
    decodeParams: (params) => {
      const decoded = decode(params === undefined && optional ? {} : params)
      // A Right is returned as it is (its left type is only a type).
      return decoded._tag === "Right"
        ? decoded as Either.Either<unknown, never>
        : Either.left(
          new McpError.InvalidParams({ message: `Invalid params for ${name}: ${describeError(decoded.left)}` })
        )
    },
    encodeParams: lazily(() => Base.codec(shape.params, "encode", Base.parseOptions)),
    encodeResult: request ? lazily(() => Base.codec(shape.result!, "encode", Base.parseOptions)) : undefined,
    decodeResult: request ? lazily(() => Base.codec(shape.result!, "decode", Base.parseOptions)) : undefined
  }
}

const compile = (revision: Revision.Revision): ReadonlyMap<string, Entry> =>
  new Map(
    definitions.flatMap((definition) =>
      definition.shapes
        .filter((shape) => shape.revisions.includes(revision))
        .map((shape) => [definition.name, makeEntry(definition, shape)] as const)
    )
  )

const tables = new Map<Revision.Revision, ReadonlyMap<string, Entry>>()

const tableOf = (revision: Revision.Revision): ReadonlyMap<string, Entry> => {
  let found = tables.get(revision)
  if (found === undefined) tables.set(revision, found = compile(revision))
  return found
}

/**
 * The methods of a revision, by name, with their codecs compiled.
 *
 * @since 0.1.0
 * @category catalog
 */
export const table = (revision: Revision.Revision): ReadonlyMap<string, Entry> => tableOf(revision)

/**
 * The entry of `method` in `revision`, if that revision has it; typed by the method when its
 * name is known statically.
 *
 * @since 0.1.0
 * @category catalog
 */
export const lookup: {
  <M extends Name>(revision: Revision.Revision, method: M): Entry<Params<M>, Result<M>> | undefined
  (revision: Revision.Revision, method: string): Entry | undefined
} = (revision: Revision.Revision, method: string): any => tableOf(revision).get(method)

/**
 * The methods of a revision that `side` receives (the ones it may be asked to serve).
 *
 * @since 0.1.0
 * @category catalog
 */
export const receivedBy = (side: "server" | "client", revision: Revision.Revision): ReadonlyArray<Entry> =>
  Array.from(tableOf(revision).values()).filter((entry) =>
    entry.definition.direction === "both" || entry.definition.direction !== side
  )
