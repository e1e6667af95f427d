// Every configuration problem found at start-up, reported together.
import { GatewayError } from './gatewayError.ts'

export class ConfigError extends GatewayError {
  override name = 'ConfigError'
  readonly problems: string[]

  constructor(problems: string[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      {
        code: 'INVALID_CONFIG',
      },
    )
    this.problems = problems
  }
}
