/** The study buttons of randomization (core STUDY_BUTTONS); the server checks the same keys. */
export const RAND_BUTTONS = {
  config: 'business.randomization.config',
  subject: 'business.randomization.subject',
  unblinded: 'business.randomization.unblinded',
  emergency: 'business.randomization.emergency',
  unblindAll: 'business.randomization.unblindAll',
} as const;
