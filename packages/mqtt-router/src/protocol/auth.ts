import type { AuthPacket } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import type { AuthEffect } from "./effects.js";
import type { Outbox } from "./outbox.js";
import { violation, type Violation } from "./violation.js";

/**
 * Enhanced authentication (MQTT 5, spec §4.12): the AUTH exchange started by a CONNECT that
 * carries an Authentication Method, and re-authentication after CONNACK. The method and data are
 * the app's business; this only enforces who may speak when, and with which method.
 */
export class AuthExchange {
  /** True between a client AUTH 0x19 and the end of that re-authentication. */
  #reauthenticating = false;
  /** True after the server sent AUTH 0x18, until the client answers. */
  #awaitingClient = false;

  readonly #outbox: Outbox;
  readonly method: string | undefined;

  /**
   * @param outbox where AUTH packets go
   * @param method the CONNECT's Authentication Method, undefined when the client did not ask
   */
  constructor(outbox: Outbox, method: string | undefined) {
    this.#outbox = outbox;
    this.method = method;
  }

  /** Whether a re-authentication is under way. */
  get reauthenticating(): boolean {
    return this.#reauthenticating;
  }

  /**
   * An AUTH from the client. Without a method in CONNECT, or with a different one, or out of
   * turn, it is a violation (Bad authentication method before CONNACK, Protocol Error after)
   * [MQTT-4.12.0-5], [MQTT-4.12.0-7], [MQTT-4.12.1-1]. Otherwise the effect for the app.
   */
  onClientAuth(packet: AuthPacket, connected: boolean): AuthEffect | Violation {
    if (this.method === undefined) return violation(ReasonCode.ProtocolError, "AUTH without an Authentication Method in CONNECT");
    if (packet.properties.authenticationMethod !== this.method) {
      return violation(connected ? ReasonCode.ProtocolError : ReasonCode.BadAuthenticationMethod, "AUTH with a different Authentication Method");
    }
    const phase = connected ? "reauthenticate" : "connect";
    if (packet.reasonCode === ReasonCode.ContinueAuthentication) {
      if (!this.#awaitingClient) return violation(ReasonCode.ProtocolError, "AUTH 0x18 the server did not ask for");
      this.#awaitingClient = false;
      return this.#effect(packet, phase, ReasonCode.ContinueAuthentication);
    }
    if (packet.reasonCode === ReasonCode.ReAuthenticate && connected && !this.#reauthenticating) {
      this.#reauthenticating = true;
      return this.#effect(packet, phase, ReasonCode.ReAuthenticate);
    }
    return violation(ReasonCode.ProtocolError, `unexpected AUTH reason code 0x${packet.reasonCode.toString(16)}`);
  }

  /** The app continues the exchange: AUTH 0x18 with its data. False when no exchange is open. */
  continue(data: Uint8Array | undefined, connected: boolean): boolean {
    if (this.method === undefined || (connected && !this.#reauthenticating)) return false;
    if (!this.#sendAuth(ReasonCode.ContinueAuthentication, data)) return false;
    this.#awaitingClient = true;
    return true;
  }

  /** The app accepts a re-authentication: AUTH 0x00. False when none is under way. */
  succeed(data: Uint8Array | undefined): boolean {
    if (!this.#reauthenticating) return false;
    if (!this.#sendAuth(ReasonCode.Success, data)) return false;
    this.#reauthenticating = false;
    this.#awaitingClient = false;
    return true;
  }

  /** Sends AUTH; false when it cannot be sent (e.g. larger than the client accepts). */
  #sendAuth(reasonCode: number, data: Uint8Array | undefined): boolean {
    const method = this.method ?? "";
    return this.#outbox.send({
      type: "auth",
      reasonCode,
      properties: data === undefined ? { authenticationMethod: method } : { authenticationMethod: method, authenticationData: data },
    }).ok;
  }

  #effect(packet: AuthPacket, phase: AuthEffect["phase"], reasonCode: AuthEffect["reasonCode"]): AuthEffect {
    const data = packet.properties.authenticationData;
    return {
      kind: "auth",
      phase,
      reasonCode,
      method: this.method ?? "",
      ...(data === undefined ? {} : { data }),
      userProperties: packet.properties.userProperties ?? [],
    };
  }
}
