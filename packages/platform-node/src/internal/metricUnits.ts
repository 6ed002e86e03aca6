/**
 * `@effect/opentelemetry`'s OTLP metrics exporter takes a metric's unit from a label on its key
 * (`unit`, or `time_unit`) and leaves that label on every data point as an attribute too: our
 * duration histograms would carry `unit="s"` on each point, an attribute the conventions do not
 * have (and a label in Prometheus). What is exported loses it here: a point's `unit` or
 * `time_unit` attribute whose value is its metric's unit is dropped; the metric keeps its unit.
 */

interface KeyValue {
  readonly key: string
  readonly value?: { readonly stringValue?: string } | undefined
}

interface DataPoints {
  readonly dataPoints?: ReadonlyArray<{ readonly attributes?: ReadonlyArray<KeyValue> }>
}

const kinds = ["sum", "gauge", "histogram", "exponentialHistogram", "summary"] as const

interface Metric extends Partial<Record<(typeof kinds)[number], DataPoints>> {
  readonly unit?: string
}

interface Request {
  readonly resourceMetrics?: ReadonlyArray<{
    readonly scopeMetrics?: ReadonlyArray<{ readonly metrics?: ReadonlyArray<Metric> }>
  }>
}

const isUnitOf = (unit: string) => (attribute: KeyValue) =>
  (attribute.key === "unit" || attribute.key === "time_unit") && attribute.value?.stringValue === unit

const strip = (metric: Metric): Metric => {
  const unit = metric.unit
  if (unit === undefined || unit === "") return metric
  const isUnit = isUnitOf(unit)
  const out: Record<string, unknown> = { ...metric }
  for (const kind of kinds) {
    const points = metric[kind]
    if (points?.dataPoints === undefined) continue
    out[kind] = {
      ...points,
      dataPoints: points.dataPoints.map((point) =>
        point.attributes?.some(isUnit) === true
          ? { ...point, attributes: point.attributes.filter((attribute) => !isUnit(attribute)) }
          : point
      )
    }
  }
  return out
}

/**
 * An export request of `OtlpMetrics` (OTLP's `ExportMetricsServiceRequest`, as objects, before it is
 * serialized) without the unit's attribute on its points; anything else as it came.
 */
export const withoutUnitAttribute = (data: unknown): unknown => {
  if (typeof data !== "object" || data === null) return data
  // The exporter's own request (OtlpSerialization.metrics is typed `unknown`); each level is read
  // only where it is there.
  const request = data as Request
  const resources = request.resourceMetrics
  if (resources === undefined) return data
  return {
    ...request,
    resourceMetrics: resources.map((resource) => ({
      ...resource,
      scopeMetrics: resource.scopeMetrics?.map((scope) => ({ ...scope, metrics: scope.metrics?.map(strip) }))
    }))
  }
}
