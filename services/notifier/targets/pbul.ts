/**
 * `pbul://ACCESS_TOKEN`: a Pushbullet note through `POST {base}/v2/pushes`.
 *
 * @module
 */
import { isHeaderToken } from "../../../lib/setting_kinds.ts";
import {
  MASK,
  type Message,
  type ServiceBases,
  type Target,
  type TargetRequest,
  TargetUrlError,
} from "./target.ts";
import { basicAuth, basicCredentials, type UrlParts } from "./url_parts.ts";

/**
 * The Pushbullet target of `token`: posts `{"type":"note","title","body"}` with HTTP
 * Basic authentication (the token as user name) and the `Access-Token` header.
 */
export function pushbulletTarget(token: string): Target {
  return {
    scheme: "pbul",
    service: "Push API",
    display: `pbul://${MASK}`,
    secrets: [token, basicCredentials(token)],
    requests(message: Message, bases: ServiceBases): TargetRequest[] {
      return [{
        url: `${bases.pushbullet.replace(/\/+$/, "")}/v2/pushes`,
        method: "POST",
        headers: {
          authorization: basicAuth(token),
          "access-token": token,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify({
          type: "note",
          title: message.title,
          body: message.body,
        }),
      }];
    },
  };
}

/** Reads `pbul://ACCESS_TOKEN`. */
export function parsePushbulletUrl(parts: UrlParts): Target {
  const token = parts.port === undefined ? parts.host : "";
  if (
    parts.user !== undefined || parts.path.length > 0 || !isHeaderToken(token)
  ) {
    throw new TargetUrlError(
      `"pbul://${MASK}": expected pbul://ACCESS_TOKEN (devices, e-mails and channels are not supported)`,
    );
  }
  return pushbulletTarget(token);
}
