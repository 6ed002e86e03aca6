/**
 * The schemas of the features a server or client may never use (sampling, elicitation, the
 * input requests of 2026-07-28, the tasks extension, prompts, completion, `subscriptions/listen`,
 * the skills extension, resources, roots, the core tasks and the handshake of the older revisions,
 * `server/discover`, the server's capabilities, tools), built on the first call rather than when a
 * module is evaluated. Each
 * accessor returns the very schemas `Schema.Sampling`, `Schema.Elicitation`, `Schema.InputRequired`,
 * `Schema.TasksExtension`, `Schema.Prompt`, `Schema.Completion`, `Schema.Subscription` and
 * `Schema.Skills` export (those modules build them when imported). The method catalog reads them
 * through these, so does the server: a server, in a Worker as on Node, builds a feature's schemas when
 * a message of that feature first needs them. Import this module by its deep path
 * (`@effect-mcp/core/FeatureSchemas`); the package's index pulls every schema module in.
 *
 * @since 0.3.0
 */
import * as AppsSchemas from "./internal/schema/apps.js"
import { serverCapabilities as serverCapabilitiesSchemas } from "./internal/schema/capabilities.js"
import { completion as completionSchemas } from "./internal/schema/completion.js"
import { discovery as discoverySchemas } from "./internal/schema/discovery.js"
import { elicitation as elicitationSchemas } from "./internal/schema/elicitation.js"
import { inputRequired as inputRequiredSchemas } from "./internal/schema/inputRequired.js"
import { lifecycle as lifecycleSchemas } from "./internal/schema/lifecycle.js"
import { prompt as promptSchemas } from "./internal/schema/prompt.js"
import { resource as resourceSchemas } from "./internal/schema/resource.js"
import { roots as rootsSchemas } from "./internal/schema/roots.js"
import { sampling as samplingSchemas } from "./internal/schema/sampling.js"
import * as SkillsSchemas from "./internal/schema/skills.js"
import { subscription as subscriptionSchemas } from "./internal/schema/subscription.js"
import { tasks as tasksSchemas } from "./internal/schema/tasks.js"
import * as TasksExtensionSchemas from "./internal/schema/tasksExtension.js"
import * as ToolSchemas from "./internal/schema/tool.js"

/**
 * The schemas of `Schema.Sampling`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const sampling = samplingSchemas

/**
 * The schemas of `Schema.Elicitation`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const elicitation = elicitationSchemas

/**
 * The schemas of `Schema.InputRequired`, built on the first call (with those of sampling and
 * elicitation, which its input requests hold).
 *
 * @since 0.3.0
 * @category accessors
 */
export const inputRequired = inputRequiredSchemas

/**
 * The schemas of `Schema.TasksExtension`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const tasksExtension = TasksExtensionSchemas.tasksExtension

/**
 * The tasks extension's identifier, `Schema.TasksExtension.extensionId` (building nothing).
 *
 * @since 0.3.0
 * @category constants
 */
export const tasksExtensionId = TasksExtensionSchemas.extensionId

/**
 * The schemas of `Schema.Prompt`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const prompt = promptSchemas

/**
 * The schemas of `Schema.Completion`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const completion = completionSchemas

/**
 * The schemas of `Schema.Subscription`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const subscription = subscriptionSchemas

/**
 * The schemas of `Schema.Skills`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const skills = SkillsSchemas.skills

/**
 * The skills extension's identifier, `Schema.Skills.extensionId` (building nothing).
 *
 * @since 0.3.0
 * @category constants
 */
export const skillsExtensionId = SkillsSchemas.extensionId

/**
 * The schemas of `Schema.Apps` (MCP Apps views' and tools' `_meta.ui`), built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const apps = AppsSchemas.apps

/**
 * MCP Apps' extension identifier, `Schema.Apps.extensionId` (building nothing).
 *
 * @since 0.3.0
 * @category constants
 */
export const appsExtensionId = AppsSchemas.extensionId

/**
 * The MIME type of an MCP Apps view, `Schema.Apps.mimeType` (building nothing).
 *
 * @since 0.3.0
 * @category constants
 */
export const appsMimeType = AppsSchemas.mimeType

/**
 * The deprecated flat `_meta` key of a tool's link to its view, `Schema.Apps.resourceUriKey`
 * (building nothing).
 *
 * @since 0.3.0
 * @category constants
 */
export const appsResourceUriKey = AppsSchemas.resourceUriKey

/**
 * The URI scheme of every MCP Apps view, `Schema.Apps.scheme` (building nothing).
 *
 * @since 0.3.0
 * @category constants
 */
export const appsScheme = AppsSchemas.scheme

/**
 * Does a client with these capabilities render MCP Apps views, `Schema.Apps.rendersViews` (building
 * nothing)?
 *
 * @since 0.3.0
 * @category predicates
 */
export const appsRendersViews = AppsSchemas.rendersViews

/**
 * The schemas of `Schema.Resource`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const resource = resourceSchemas

/**
 * The schemas of `Schema.Roots`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const roots = rootsSchemas

/**
 * The schemas of `Schema.Tasks` (the core tasks of 2025-11-25) but its `TaskStatus`, `TaskMetadata`
 * and `taskField`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const tasks = tasksSchemas

/**
 * The schemas of `Schema.Lifecycle`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const lifecycle = lifecycleSchemas

/**
 * The schemas of `Schema.Discovery`, built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const discovery = discoverySchemas

/**
 * `Schema.Capabilities.ServerCapabilities` (which only `initialize` and `server/discover` carry), built
 * on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const serverCapabilities = serverCapabilitiesSchemas

/**
 * The schemas of `Schema.Tool` of the current revisions (all but the dated `…20250618`,
 * `…20250326` and `…20241105` ones), built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const tool = ToolSchemas.tool

/**
 * The dated schemas of `Schema.Tool` (2024-11-05 to 2025-06-18), built on the first call.
 *
 * @since 0.3.0
 * @category accessors
 */
export const toolLegacy = ToolSchemas.toolLegacy

/**
 * `Schema.Tool.isValidToolName` (building nothing).
 *
 * @since 0.3.0
 * @category predicates
 */
export const isValidToolName = ToolSchemas.isValidToolName
