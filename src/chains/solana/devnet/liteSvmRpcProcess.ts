// The child process that runs the Solana devnet: a LiteSVM behind its JSON-RPC front on loopback.
// Started by startLiteSvmRpc over IPC; it reports its URL and genesis hash, and exits when its
// parent goes away.
import type { AddressInfo } from 'node:net'
import { createLiteSvmRpc } from './createLiteSvmRpc.ts'

const port = Number(process.argv[2] ?? 0)
const { server, genesisHash } = createLiteSvmRpc({ allowSbpfV0Deployment: process.argv[3] === 'allow-sbpf-v0' })
server.listen(port, '127.0.0.1', () => {
  const { port: bound } = server.address() as AddressInfo
  process.send?.({ url: `http://127.0.0.1:${bound}`, genesisHash })
})
process.on('disconnect', () => process.exit(0))
