/**
 * The codes the protocol layer sends when authentication or authorization refuses something,
 * named for the auth modules; the values are the codec's.
 * @module
 */
import { ConnectReturnCode, ReasonCode } from "@handoff/mqtt-router";

/** MQTT 5 CONNACK 0x86: Bad User Name or Password. */
export const BAD_USER_NAME_OR_PASSWORD = ReasonCode.BadUserNameOrPassword;
/** MQTT 5 CONNACK / PUBACK / PUBREC / SUBACK 0x87: Not authorized. */
export const NOT_AUTHORIZED = ReasonCode.NotAuthorized;
/** MQTT 5 CONNACK 0x8C: Bad authentication method. */
export const BAD_AUTHENTICATION_METHOD = ReasonCode.BadAuthenticationMethod;
/** MQTT 3.1.1 CONNACK return code 4: bad user name or password. */
export const V311_BAD_USER_NAME_OR_PASSWORD = ConnectReturnCode.BadUserNameOrPassword;
/** MQTT 3.1.1 CONNACK return code 5: not authorized. */
export const V311_NOT_AUTHORIZED = ConnectReturnCode.NotAuthorized;
