/**
 * MCP wire types as Effect Schemas, one module per area.
 *
 * @since 0.1.0
 */

/** @since 0.2.0 */
export * as Apps from "./Apps.js"
/** @since 0.1.0 */
export * as Base from "./Base.js"
/** @since 0.1.0 */
export * as Capabilities from "./Capabilities.js"
/** @since 0.1.0 */
export * as Completion from "./Completion.js"
/** @since 0.1.0 */
export * as Content from "./Content.js"
/** @since 0.1.0 */
export * as Discovery from "./Discovery.js"
/** @since 0.1.0 */
export * as Elicitation from "./Elicitation.js"
/** @since 0.1.0 */
export * as InputRequired from "./InputRequired.js"
/** @since 0.1.0 */
export * as Lifecycle from "./Lifecycle.js"
/** @since 0.1.0 */
export * as Logging from "./Logging.js"
/** @since 0.1.0 */
export * as Prompt from "./Prompt.js"
/** @since 0.1.0 */
export * as Resource from "./Resource.js"
/** @since 0.1.0 */
export * as Roots from "./Roots.js"
/** @since 0.1.0 */
export * as Sampling from "./Sampling.js"
/** @since 0.1.0 */
export * as Skills from "./Skills.js"
/** @since 0.1.0 */
export * as Stateless from "./Stateless.js"
/** @since 0.1.0 */
export * as Subscription from "./Subscription.js"
/** @since 0.1.0 */
export * as Tasks from "./Tasks.js"
/** @since 0.1.0 */
export * as TasksExtension from "./TasksExtension.js"
/** @since 0.1.0 */
export * as Tool from "./Tool.js"
