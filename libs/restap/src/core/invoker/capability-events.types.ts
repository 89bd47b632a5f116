/** The levels of a capability's log messages (RFC 5424, as MCP's logging names them). */
export type CapabilityLogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/**
 * Where a capability call's progress and log messages go, given by the door that made the call
 * (MCP: `notifications/progress` to a request that carries a progressToken, `notifications/message`
 * where the client asked for logs). A door that has nowhere to send them gives none.
 */
export interface CapabilityCallEvents {
  progress?(progress: number, total: number | undefined, message: string | undefined): void;
  log?(level: CapabilityLogLevel, data: unknown): void;
}
