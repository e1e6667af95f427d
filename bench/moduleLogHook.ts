// A Node `--import` file whose resolve hook appends the URL of every file the process imports to
// the file named by the MODULE_LOG environment variable: what a start loads, counted by
// bench/memoryAtStart.ts and checked by test/house/lazyModules.test.ts. Returns the hook's path.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

export function writeModuleLogHook(dir: string): string {
  const hook = join(dir, 'module-log-hook.mjs')
  writeFileSync(
    hook,
    `import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  if (r.url.startsWith('file:') && process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, r.url + '\\\\n')
  return r
}\`))
`,
  )
  return hook
}
