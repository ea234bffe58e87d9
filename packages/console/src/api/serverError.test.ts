import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import i18n, { loadLanguage } from '../locales/index.ts';
import { serverErrorText } from './serverError.ts';

const failure = (extra: Record<string, unknown>) => ({
  status: 'error' as const,
  message: 'error',
  error: 'username already exists',
  ...extra,
});

describe('serverErrorText', () => {
  beforeAll(() => Promise.all([loadLanguage('en'), loadLanguage('zh')]));
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('translates a known code into the user language', async () => {
    await i18n.changeLanguage('zh');
    expect(serverErrorText(failure({ code: 'user.exists' }))).toBe('用户名已存在');
    await i18n.changeLanguage('en');
    expect(serverErrorText(failure({ code: 'user.exists' }))).toBe('username already exists');
  });

  it('fills in the params and names the field in the user language', async () => {
    await i18n.changeLanguage('zh');
    const body = failure({
      error: 'username is too long',
      code: 'validation.max_length',
      params: { where: 'body', field: 'username', limit: 5 },
    });
    expect(serverErrorText(body)).toBe('body 字段 "用户名" 最多 5 个字符');
    await i18n.changeLanguage('en');
    expect(serverErrorText(body)).toBe('invalid body field "username": must be at most 5 characters long');
  });

  it('keeps a field name it does not know as the server sent it', () => {
    const body = failure({ code: 'validation.required', params: { where: 'body', field: 'events.0' } });
    expect(serverErrorText(body)).toBe('invalid body: the field "events.0" is required');
  });

  it('falls back to the server text without a code, for an unknown code or a missing param', async () => {
    await i18n.changeLanguage('zh');
    expect(serverErrorText(failure({}))).toBe('username already exists');
    expect(serverErrorText(failure({ code: 'something.new' }))).toBe('username already exists');
    expect(
      serverErrorText(failure({ code: 'validation.max_length', params: { where: 'body', field: 'username' } })),
    ).toBe('username already exists');
    // a code naming a group of texts, not a text
    expect(serverErrorText(failure({ code: 'validation' }))).toBe('username already exists');
  });

  it('uses the message, then the fallback, when the envelope has no error text', () => {
    expect(serverErrorText({ message: 'Not Found' })).toBe('Not Found');
    expect(serverErrorText(undefined, 'Bad Gateway')).toBe('Bad Gateway');
  });
});
