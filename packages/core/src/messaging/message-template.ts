import { MESSAGE_MSG, MESSAGE_VARIABLES, type MessageVariable } from '../messaging-contract.js';

/**
 * Message templates (issue 38): `{name}` stands for a variable of MESSAGE_VARIABLES. Only ASCII identifiers in
 * braces are variables; other braces (`{注意}`) are plain text. The patient's masked name is core's `maskName`
 * (subject.ts) and the masked mobile number core's `maskMobile` (subject.ts), as the patient list masks them.
 */

const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function isVariable(name: string): name is MessageVariable {
  return Object.prototype.hasOwnProperty.call(MESSAGE_VARIABLES, name);
}

/**
 * The message a patient receives. A variable without a value renders as nothing; an unknown name (which
 * `templateProblems` refuses when a template is saved) also renders as nothing, so a placeholder never reaches a
 * patient.
 */
export function renderMessage(template: string, vars: Partial<Record<MessageVariable, string>>): string {
  return template.replace(VARIABLE, (_whole, name: string) => (isVariable(name) ? (vars[name] ?? '') : ''));
}

/** The names in a template that are no variable. */
export function unknownTemplateVariables(template: string): string[] {
  const names = new Set<string>();
  for (const m of template.matchAll(VARIABLE)) if (!isVariable(m[1]!)) names.add(m[1]!);
  return [...names];
}

/** What is wrong with a template a study saves: MESSAGE_MSG.unknownVariable when it names an unknown variable. */
export function templateProblems(template: string): string[] {
  return unknownTemplateVariables(template).length > 0 ? [MESSAGE_MSG.unknownVariable] : [];
}

/** A WeChat openId as the message list shows it: `oAbC…xYz9` (the first and last four kept). */
export function maskOpenId(openId: string): string {
  const chars = Array.from(openId);
  // Too short to keep both ends: the last two at most.
  if (chars.length <= 8) return `…${chars.length > 4 ? chars.slice(-2).join('') : ''}`;
  return `${chars.slice(0, 4).join('')}…${chars.slice(-4).join('')}`;
}
