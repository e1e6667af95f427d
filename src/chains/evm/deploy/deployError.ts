// Why `npm run deploy:contracts` stopped: a short message for the operator, the details that say
// what to do about it, and a stable code for scripts that read `--json`. Never carries a key.
import { GatewayError } from '../../../errors/gatewayError.ts'

export type DeployErrorCode =
  | 'DEPLOY_OPTIONS'
  | 'DEPLOY_RPC_UNREACHABLE'
  | 'DEPLOY_CHAIN_MISMATCH'
  | 'DEPLOY_NO_CREATE2_DEPLOYER'
  | 'DEPLOY_CODE_DIFFERS'
  | 'DEPLOY_UNFUNDED'
  | 'DEPLOY_FAILED'

export class DeployError extends GatewayError {
  override name = 'DeployError'
  declare readonly code: DeployErrorCode

  constructor(shortMessage: string, params: { code: DeployErrorCode; details?: string; cause?: unknown }) {
    super(shortMessage, params)
  }
}
