// A fresh PostgreSQL database for one test file, on the server the tests use (TEST_DATABASE_URL,
// default the local server's `test` database), dropped when the file is done. The tests need a
// real server: none reachable is a failure, not a skip.
import pg from 'pg'

export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

export type TestDatabase = { url: string; name: string; drop(): Promise<void> }

export async function createTestDatabase(prefix = 'gateway'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: testDatabaseUrl, connectionTimeoutMillis: 5_000 })
  try {
    await admin.connect()
  } catch (err) {
    throw new Error(
      `the tests need PostgreSQL at ${testDatabaseUrl.replace(/\/\/[^@]*@/, '//')} (set TEST_DATABASE_URL): ${(err as Error).message}`,
    )
  }
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: testDatabaseUrl })
      await client.connect()
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await client.end()
      }
    },
  }
}
