import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MESSAGE_TEMPLATES, MESSAGE_KINDS, MESSAGE_MSG, MESSAGE_VARIABLES } from '../messaging-contract.js';
import { maskMobile, maskName } from '../subject.js';
import { maskOpenId, renderMessage, templateProblems, unknownTemplateVariables } from './message-template.js';

describe('messages: templates', () => {
  it('renders every variable of a default template', () => {
    const text = renderMessage(DEFAULT_MESSAGE_TEMPLATES.visit_before, {
      patient: maskName('张三'),
      study: '肺癌随访研究',
      window: '2026-03-07 至 2026-03-15',
      visit: '第1次随访',
    });
    expect(text).toBe('张*您好，您参加的肺癌随访研究将于2026-03-07 至 2026-03-15进行第1次随访，请按时到院随访。');
  });

  it('a variable without a value renders as nothing; other braces stay as written', () => {
    expect(renderMessage('{patient}您好《{form}》', { patient: '李*' })).toBe('李*您好《》');
    expect(renderMessage('请注意{注意}与{ patient }', { patient: '李*' })).toBe('请注意{注意}与{ patient }');
    expect(renderMessage('{link}{link}', { link: 'https://x/y' })).toBe('https://x/yhttps://x/y');
  });

  it('a value is inserted as it is, never read as a template or replacement pattern', () => {
    expect(renderMessage('{patient}：{form}', { patient: '{form}', form: '$& $1' })).toBe('{form}：$& $1');
  });

  it('default templates have no problems; an unknown variable is reported once', () => {
    for (const kind of MESSAGE_KINDS) expect(templateProblems(DEFAULT_MESSAGE_TEMPLATES[kind])).toEqual([]);
    expect(templateProblems('{patient}您好 {doctor} {hospital} {doctor}')).toEqual([MESSAGE_MSG.unknownVariable]);
    expect(unknownTemplateVariables('{patient}您好 {doctor} {hospital} {doctor}')).toEqual(['doctor', 'hospital']);
    expect(templateProblems('{constructor}{toString}')).toEqual([MESSAGE_MSG.unknownVariable]);
  });

  it('an unknown variable never reaches a patient (property)', () => {
    const names = Object.keys(MESSAGE_VARIABLES);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...names), fc.stringMatching(/^[a-z]{1,8}$/)), { maxLength: 5 }),
        fc.string({ maxLength: 10 }),
        (vars, text) => {
          const template = vars.map((v) => `${text}{${v}}`).join('');
          const out = renderMessage(template, {});
          const unknown = vars.filter((v) => !names.includes(v));
          expect(templateProblems(template)).toEqual(unknown.length > 0 ? [MESSAGE_MSG.unknownVariable] : []);
          for (const v of vars) expect(out.includes(`{${v}}`) && !text.includes(`{${v}}`)).toBe(false);
        },
      ),
    );
  });

  it('mobile and openId masks (the mobile mask is core’s maskMobile)', () => {
    expect(maskMobile('13812345678')).toBe('138****5678');
    expect(maskOpenId('oAbCdEfGhIjKlMnOpQrStUvWxYz9')).toBe('oAbC…xYz9');
    expect(maskOpenId('o6_bmjrPTlm6_2sgVt7hMZOPfL2M')).toBe('o6_b…fL2M');
    expect(maskOpenId('abcdefgh')).toBe('…gh');
    expect(maskOpenId('abc')).toBe('…');
  });
});
