/** platform §8: all messages stay 5 seconds (the request wrapper's, the app's and the CRF renderer's own). */
export const MESSAGE_SECONDS = 5;
