/**
 * Why the session ended, when the person should be told on the sign-in page (idle sign-out, an expired account):
 * kept in sessionStorage so that it survives the navigation (or reload) to /login, and dropped at the next sign-in.
 * Clearing the session's storage at sign-out keeps it (local-storage.ts), whichever is done first.
 */
export const SIGN_OUT_NOTICE_KEY = 'edc.signOutNotice';
const KEY = SIGN_OUT_NOTICE_KEY;

export function setSignOutNotice(text: string): void {
  try {
    window.sessionStorage.setItem(KEY, text);
  } catch {
    // Storage refused (private mode): the message shown at sign-out is all there is.
  }
}

export function signOutNotice(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function clearSignOutNotice(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}
