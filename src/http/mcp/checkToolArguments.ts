// Checks a tool call's own arguments against the tool's input schema, one level deep: required
// and unknown names, strings and their patterns, objects. What an argument carries further (the
// intent's fields) is checked by the route it goes to, with the same messages as over HTTP.
import type { FieldError } from '../../errors/inputError.ts'
import type { McpTool } from './mcpTools.ts'

type PropertySchema = { type?: string; pattern?: string; maxLength?: number; description?: string }

export function checkToolArguments(schema: McpTool['inputSchema'], args: unknown): FieldError[] {
  if (args === undefined) args = {}
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return [{ field: 'arguments', message: 'must be a JSON object' }]
  const given = args as Record<string, unknown>
  const errors: FieldError[] = []
  const names = Object.keys(schema.properties)
  for (const name of schema.required ?? []) {
    if (given[name] === undefined) errors.push({ field: name, message: 'is required' })
  }
  for (const [name, value] of Object.entries(given)) {
    const property = schema.properties[name] as PropertySchema | undefined
    if (!property) {
      errors.push({ field: name, message: `is not a known argument (the arguments are: ${names.join(', ')})` })
      continue
    }
    if (value === undefined) continue
    if (property.type === 'object') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        errors.push({ field: name, message: 'must be a JSON object' })
      continue
    }
    if (property.type === 'string') {
      if (typeof value !== 'string') errors.push({ field: name, message: 'must be a string' })
      else if (property.maxLength !== undefined && value.length > property.maxLength)
        errors.push({ field: name, message: `must be at most ${property.maxLength} characters` })
      else if (property.pattern && !new RegExp(property.pattern).test(value))
        errors.push({
          field: name,
          message: `must be ${property.description ?? `a string matching ${property.pattern}`}`,
        })
    }
  }
  return errors
}
