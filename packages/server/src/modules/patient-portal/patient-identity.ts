import crypto from 'node:crypto';

/**
 * Who the person on the patient's phone is, as the messaging platform names them: an openId, unique per
 * official account. The binding code proves which patient record they belong to; the provider only names
 * the account (docs/patient-portal.md).
 */
export interface PatientIdentityProvider {
  readonly name: string;
  /**
   * The openId of the account that opened the binding page. `authCode` is what the platform's OAuth
   * redirect handed the page (WeChat: the `code` of `snsapi_base`); `appId` the study's official account.
   */
  identify(input: { studyId: number; appId: string | null; authCode?: string | null }): Promise<string>;
}

/**
 * The development provider, standing in for WeChat's web OAuth where no official account exists: each
 * binding gets a fresh pseudonymous openId (`dev_` and 28 hex characters, WeChat's length).
 */
export const devIdentityProvider: PatientIdentityProvider = {
  name: 'dev',
  identify: () => Promise.resolve(`dev_${crypto.randomBytes(14).toString('hex')}`),
};
