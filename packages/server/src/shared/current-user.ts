/** The signed-in caller as the services see it: who they are and what their system roles grant. */
export interface CurrentUser {
  userId: number;
  userName: string;
  name: string;
  deptId: number | null;
  sessionId: string;
  admin: boolean;
  permissions: string[];
  setPasswordMust: boolean;
  /** The request's address: a password re-entered here counts with sign-in's failures from it; absent outside a request. */
  ip?: string;
  /** The auth generation read with the session (shared/auth-cache.ts); absent for callers built outside a request. */
  authGeneration?: number;
}
