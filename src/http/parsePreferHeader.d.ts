// parse-prefer-header ships no types: RFC 7240 preferences by name in camelCase (`respond-async` →
// `respondAsync`), each `true` or its value (a parameter as `name-param`), the first of a name kept.
declare module 'parse-prefer-header' {
  export default function parsePreferHeader(prefer: string | string[] | undefined): Record<string, string | true>
}
