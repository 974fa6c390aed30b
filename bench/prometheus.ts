// Reading the gateway's /metrics text (Prometheus' exposition format) in the benchmarks.

/** One sample of a metric in Prometheus' text format (`name{labels} value`), NaN when absent. */
export function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1).split(' ')[0]) : Number.NaN;
}
