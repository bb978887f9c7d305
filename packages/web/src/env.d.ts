interface ImportMetaEnv {
  /** Optional API origin when the app is not served by the API server itself. */
  readonly VITE_API_BASE?: string;
}
