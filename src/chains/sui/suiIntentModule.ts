// Where the gateway's Move code lives and what the adapter calls in it (move/sources/intents.move).

/** One deployment of the package: its id and the shared Hub object that holds the vaults. */
export type SuiDeployment = {
  packageId: string
  hub: SharedObject
}

export type SharedObject = { objectId: string; initialSharedVersion: string }

export const suiIntentModule = {
  module: 'intents',
  validate: 'validate',
  execute: 'execute',
  /** The struct a policy object must have, under the deployment's package. */
  policyStruct: 'Policy',
  /** The system Clock, shared from genesis. */
  clock: { objectId: '0x0000000000000000000000000000000000000000000000000000000000000006', initialSharedVersion: '1' },
} as const
