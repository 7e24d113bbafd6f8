/**
 * The codes the protocol layer sends when authentication or authorization refuses something.
 * @module
 */

/** MQTT 5 CONNACK 0x86: Bad User Name or Password. */
export const BAD_USER_NAME_OR_PASSWORD = 0x86;
/** MQTT 5 CONNACK / PUBACK / PUBREC / SUBACK 0x87: Not authorized. */
export const NOT_AUTHORIZED = 0x87;
/** MQTT 5 CONNACK 0x8C: Bad authentication method. */
export const BAD_AUTHENTICATION_METHOD = 0x8c;
/** MQTT 3.1.1 CONNACK return code 4: bad user name or password. */
export const V311_BAD_USER_NAME_OR_PASSWORD = 4;
/** MQTT 3.1.1 CONNACK return code 5: not authorized. */
export const V311_NOT_AUTHORIZED = 5;
/** MQTT 3.1.1 SUBACK return code 0x80: failure (used for a subscription the ACL refuses). */
export const V311_SUBSCRIBE_FAILURE = 0x80;
