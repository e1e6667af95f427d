// The JSON body parser: keeps the raw bytes (to hash bodies that are not intents) and refuses
// prototype-poisoning keys, as Fastify's own parser does.
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { InputError } from '../../errors/inputError.ts'

export function registerJsonBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer
    request.rawBody = raw
    if (raw.length === 0) return done(new InputError('The request body is empty', { errors: [{ field: 'body', message: 'must be a JSON object' }] }), undefined)
    try {
      done(null, secureJson.parse(raw, undefined, { protoAction: 'error', constructorAction: 'error' }))
    } catch (err) {
      done(new InputError('The request body is not valid JSON', { errors: [{ field: 'body', message: (err as Error).message }] }), undefined)
    }
  })
}
