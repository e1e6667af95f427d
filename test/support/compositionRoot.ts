// The composition root of src/: the files that name the runtimes and stores to put the gateway
// together (createGateway.ts and the steps it takes in order: openStores, startChains,
// startGatewayPayments, buildGatewayApp), paths under src/. The house tests judge the rest by it.
export const compositionRoot: readonly string[] = [
  'main.ts',
  'createGateway.ts',
  'openStores.ts',
  'startChains.ts',
  'startGatewayPayments.ts',
  'buildGatewayApp.ts',
  'runtimes.ts',
  'storageEngines.ts',
]
