/** A protocol violation by the client: the connection ends with this MQTT 5 reason code. */
export interface Violation {
  readonly reasonCode: number;
  readonly detail: string;
}

/** Builds a {@link Violation}. */
export function violation(reasonCode: number, detail: string): Violation {
  return { reasonCode, detail };
}
