// The floor for the validate bench: a bare Fastify server that parses the same JSON body against
// a small schema and answers a JSON object of the same shape, with no chain call and no hooks.
// What it answers per second on this machine is the most any Fastify service can, here.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.post(
  '/intents/validate',
  {
    schema: {
      body: {
        type: 'object',
        required: ['sender', 'nonce'],
        properties: { sender: { type: 'string' }, nonce: { type: 'string' } },
      },
    },
  },
  async (request) => ({
    status: '0x01',
    erc1066Status: '0x01',
    statusName: 'SUCCESS',
    intentHash: `0x${'00'.repeat(32)}`,
    nonce: request.body.nonce,
  }),
)
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2]) })
process.stdout.write('ready\n')
