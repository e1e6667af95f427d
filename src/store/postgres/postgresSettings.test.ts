import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readPostgresSettings } from './postgresSettings.ts'

const read = (env: Record<string, string>) => {
  const problems: string[] = []
  return { settings: readPostgresSettings(env, { problems }), problems }
}
const url = 'postgres://gateway@db.internal:5432/gateway'

describe('readPostgresSettings', () => {
  it('is undefined without DATABASE_URL, and names a URL of another scheme or a JOURNAL_PATH beside it', () => {
    assert.deepEqual(read({}), { settings: undefined, problems: [] })
    assert.match(read({ DATABASE_URL: 'mysql://db/x' }).problems[0]!, /^DATABASE_URL: must be a PostgreSQL URL/)
    assert.match(read({ DATABASE_URL: url, JOURNAL_PATH: '/var/j.sqlite' }).problems[0]!, /^JOURNAL_PATH: not used/)
  })

  it('prepares statements unless DATABASE_PREPARED_STATEMENTS is false, and names a value that is not a boolean', () => {
    assert.deepEqual(read({ DATABASE_URL: url }), { settings: { url, preparedStatements: true }, problems: [] })
    assert.deepEqual(read({ DATABASE_URL: url, DATABASE_PREPARED_STATEMENTS: 'false' }), {
      settings: { url, preparedStatements: false },
      problems: [],
    })
    const wrong = read({ DATABASE_URL: url, DATABASE_PREPARED_STATEMENTS: 'sometimes' })
    assert.deepEqual(wrong.problems, ['DATABASE_PREPARED_STATEMENTS: "sometimes" is not true or false'])
  })
})
