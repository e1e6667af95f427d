export async function runCli(_: unknown) { return 0 }
