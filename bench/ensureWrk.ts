// The bench's load generator, wrk: installed from Debian when it is missing and the bench runs as
// root (as scripts/ensureTestTools.sh installs the tests' tools), otherwise one line saying how.
import { execFileSync, spawnSync } from 'node:child_process'

export function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return
  const root = process.getuid?.() === 0
  const apt = spawnSync('apt-get', ['--version']).error === undefined
  if (!root || !apt)
    throw new Error('the bench needs wrk, its load generator: install it with `sudo apt-get install -y wrk`')
  process.stdout.write("installing Debian's wrk, the bench's load generator (apt-get install -y wrk)...\n")
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' })
  execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  if (spawnSync('wrk', ['--version']).error !== undefined) throw new Error('apt-get installed wrk, but it does not run')
}
