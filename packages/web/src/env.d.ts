interface ImportMetaEnv {
  /** Optional API origin when the app is not served by the API server itself. */
  readonly VITE_API_BASE?: string;
  /** Optional external DICOM viewer (e.g. /pacs/oviyam2/viewer.html); the in-app viewer links to it with ?patientID=. */
  readonly VITE_DICOM_VIEWER_URL?: string;
}
