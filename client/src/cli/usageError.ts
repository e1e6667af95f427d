// A mistake in how the CLI was called: reported in one line with exit code 2.
export class UsageError extends Error {
  override name = 'UsageError'
}
