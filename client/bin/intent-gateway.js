#!/usr/bin/env node
// The `intent-gateway` command: the compiled CLI (npm run build -w @intent-gateway/client).
import { runCli } from '../dist/cli/runCli.js'

process.exitCode = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
})
