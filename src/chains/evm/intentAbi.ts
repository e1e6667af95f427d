// The Intent tuple as an ABI parameter, taken from the compiled validator so the gateway and the
// contracts cannot drift apart.
import { intentValidatorArtifact } from '../../contracts/intentValidatorArtifact.ts'

const canExecute = intentValidatorArtifact.abi.find((item) => item.type === 'function' && item.name === 'canExecute')
if (canExecute?.type !== 'function') throw new Error('canExecute missing from the validator ABI')

export const intentAbiParameter = canExecute.inputs[0]
