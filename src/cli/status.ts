/**
 * A command's non-zero exit status without an error message: thrown by a command once it has
 * printed its result (`check-proof` for a rejected certificate, exit 1), returned by `runCli`.
 */
export class CommandStatus extends Error {
  constructor(readonly status: number) {
    super(`exit status ${status}`);
    this.name = 'CommandStatus';
  }
}
