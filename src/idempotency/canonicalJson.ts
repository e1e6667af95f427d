// RFC 8785 (JSON Canonicalization Scheme): one text per JSON value, so that two bodies that mean
// the same (keys in another order, `1.0` for `1`, `\u0041` for `A`) hash the same. Numbers and
// strings are written as ECMAScript's JSON.stringify writes them, which is what the RFC adopts;
// object keys are sorted by their UTF-16 code units, which is JavaScript's default sort.
// (The `canonicalize` package is these lines; it is not among our dependencies.)

/** The canonical JSON text of a JSON value (as JSON.parse returns it); a value JSON cannot hold throws a TypeError or RangeError. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`JSON has no ${value}`)
    // -0 is written 0, as the RFC says and JSON.stringify does.
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>
    const members = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
    return `{${members.join(',')}}`
  }
  throw new TypeError(`JSON has no ${typeof value}`)
}
