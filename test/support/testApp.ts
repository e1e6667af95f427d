// The HTTP app alone, built by buildApp as createGateway builds it: from a test configuration
// (testConfig: loadConfig's defaults with the groups a test sets) and the parts a test gives.
// Without them, no chains, a journal in memory and a quiet logger; each test names what it changes.
import type { FastifyInstance } from 'fastify'
import { type AppParts, buildApp } from '../../src/app.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { runtimes } from '../../src/runtimes.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { quietLogger } from './solanaGateway.ts'
import { type ConfigOverrides, testConfig } from './testConfig.ts'

export function testApp(overrides: ConfigOverrides = {}, parts: Partial<AppParts> = {}): FastifyInstance {
  return buildApp(testConfig(overrides), {
    registry: parts.registry ?? createChainRegistry({ adapters: [], defaultChainId: undefined }),
    journal: parts.journal ?? openJournal({ path: ':memory:' }),
    logger: parts.logger ?? quietLogger,
    runtimes: parts.runtimes ?? runtimes,
    ...parts,
  })
}
