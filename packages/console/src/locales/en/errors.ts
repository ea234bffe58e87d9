/**
 * Texts of the server's error codes (the `code` of a failed response), with its `params` filled in. A code missing
 * here shows the server's English text. `fields` names the request fields the validation codes mention.
 */
export default {
  auth: {
    unauthorized: 'Unauthorized: sign in or send a valid token',
    forbidden: 'Forbidden: your role may not do this',
    adminOnly: 'Forbidden: administrators only',
    badCredentials: 'Incorrect username or password',
  },
  user: {
    exists: 'Username already exists',
    notFound: 'User not found',
  },
  validation: {
    required: '{{field}} is required',
    tooLong: '{{field}} must be at most {{limit}} characters',
    tooShort: '{{field}} must be at least {{limit}} characters',
    tooMany: '{{field}} may have at most {{limit}} entries',
    minimum: '{{field}} must be at least {{limit}}',
    maximum: '{{field}} must be at most {{limit}}',
    pattern: '{{field}} has an invalid format',
    type: '{{field}} has the wrong type',
    enum: '{{field}} must be one of the allowed values',
    constant: '{{field}} must be one of the allowed values',
    unknownField: 'Unknown field {{field}}',
    invalid: '{{field}} is invalid',
  },
  fields: {
    username: 'Username',
    password: 'Password',
    email: 'Email',
    name: 'Name',
    cmd: 'Command',
    cron: 'Cron expression',
    url: 'URL',
    events: 'Events',
    role: 'Role',
    description: 'Description',
  },
};
