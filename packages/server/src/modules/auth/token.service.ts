import crypto from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export interface AccessClaims {
  userId: number;
  sessionId: string;
}

export function createTokenService(secret: Uint8Array, accessSeconds: number, clock: () => Date) {
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
        return { userId, sessionId: payload.sid };
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
