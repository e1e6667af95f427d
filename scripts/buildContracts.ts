// Writes the typed contract artifacts under src/contracts/ (`npm run build:contracts`).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { artifactsDir, compileContracts } from './compileContracts.ts'

for (const artifact of compileContracts()) {
  writeFileSync(join(artifactsDir, artifact.file), artifact.source)
  process.stdout.write(`wrote src/contracts/${artifact.file}\n`)
}
