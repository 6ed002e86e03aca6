/**
 * Core's schema modules by their deep paths, as the server reads them: the same names as core's
 * `Schema` namespace. A bundler keeps that namespace whole once any of it is read through it (two
 * levels deep, `McpSchema.Base.codec`), and it holds every feature's schemas; here the features a
 * server may never use (sampling, elicitation, input requests, the tasks extension, prompts,
 * completion, `subscriptions/listen`, skills, MCP Apps, resources, roots, the core tasks, the
 * handshake, `server/discover`, the server's capabilities, tools) are types only, their schemas read through
 * `@effect-mcp/core/FeatureSchemas` when first needed.
 */
export type * as Apps from "@effect-mcp/core/Schema/Apps"
export * as Base from "@effect-mcp/core/Schema/Base"
export type * as Capabilities from "@effect-mcp/core/Schema/Capabilities"
export type * as Completion from "@effect-mcp/core/Schema/Completion"
export * as Content from "@effect-mcp/core/Schema/Content"
export type * as Discovery from "@effect-mcp/core/Schema/Discovery"
export type * as Elicitation from "@effect-mcp/core/Schema/Elicitation"
export type * as InputRequired from "@effect-mcp/core/Schema/InputRequired"
export type * as Lifecycle from "@effect-mcp/core/Schema/Lifecycle"
export * as Logging from "@effect-mcp/core/Schema/Logging"
export type * as Prompt from "@effect-mcp/core/Schema/Prompt"
export type * as Resource from "@effect-mcp/core/Schema/Resource"
export type * as Roots from "@effect-mcp/core/Schema/Roots"
export type * as Sampling from "@effect-mcp/core/Schema/Sampling"
export type * as Skills from "@effect-mcp/core/Schema/Skills"
export * as Stateless from "@effect-mcp/core/Schema/Stateless"
export type * as Subscription from "@effect-mcp/core/Schema/Subscription"
export type * as Tasks from "@effect-mcp/core/Schema/Tasks"
export type * as TasksExtension from "@effect-mcp/core/Schema/TasksExtension"
export type * as Tool from "@effect-mcp/core/Schema/Tool"
