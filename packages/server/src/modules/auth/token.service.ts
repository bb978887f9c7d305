import crypto from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export interface AccessClaims {
  userId: number;
  sessionId: string;
}

/** Verified tokens kept so that a token's signature is checked once, not on each of its requests. */
const MAX_VERIFIED = 20_000;

export function createTokenService(secret: Uint8Array, accessSeconds: number, clock: () => Date) {
  const verified = new Map<string, { claims: AccessClaims; iat: number; exp: number }>();
  return {
    async signAccess(claims: AccessClaims): Promise<string> {
      const now = Math.floor(clock().getTime() / 1000);
      return new SignJWT({ sid: claims.sessionId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(claims.userId))
        .setIssuedAt(now)
        .setExpirationTime(now + accessSeconds)
        .sign(secret);
    },
    /** Null for a forged, malformed or expired token. */
    async verifyAccess(token: string): Promise<AccessClaims | null> {
      const known = verified.get(token);
      if (known) {
        // The signature held; the times are checked again on every use, as jose checks them.
        const now = Math.floor(clock().getTime() / 1000);
        return now < known.exp && now - known.iat <= accessSeconds ? known.claims : null;
      }
      try {
        // jose accepts a token without `exp` as never expiring; ours always carry one, so a token
        // without it (or older than an access token can be) was not issued by this server as is.
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          currentDate: clock(),
          requiredClaims: ['exp', 'iat', 'sub'],
          maxTokenAge: accessSeconds,
        });
        const userId = Number(payload.sub);
        if (!Number.isInteger(userId) || typeof payload.sid !== 'string') return null;
        const claims = { userId, sessionId: payload.sid };
        if (verified.size >= MAX_VERIFIED) verified.clear();
        verified.set(token, { claims, iat: payload.iat!, exp: payload.exp! });
        return claims;
      } catch {
        return null;
      }
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;

export function newRefreshToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** Refresh tokens are stored only as hashes, so a leaked table can't be replayed. */
export function hashRefreshToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
