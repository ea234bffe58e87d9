/**
 * 服务器错误码（失败响应中的 `code`）对应的文字，`params` 填入其中。这里没有的错误码显示服务器的英文原文。
 * `fields` 是校验错误提到的请求字段的名称。
 */
export default {
  auth: {
    unauthorized: '未授权：请登录或提供有效的令牌',
    forbidden: '禁止访问：您的角色无权执行此操作',
    adminOnly: '禁止访问：仅限管理员',
    badCredentials: '用户名或密码错误',
  },
  user: {
    exists: '用户名已存在',
    notFound: '用户不存在',
  },
  validation: {
    required: '请填写{{field}}',
    tooLong: '{{field}}最多 {{limit}} 个字符',
    tooShort: '{{field}}至少 {{limit}} 个字符',
    tooMany: '{{field}}最多 {{limit}} 项',
    minimum: '{{field}}不能小于 {{limit}}',
    maximum: '{{field}}不能大于 {{limit}}',
    pattern: '{{field}}格式不正确',
    type: '{{field}}类型不正确',
    enum: '{{field}}必须是允许的值之一',
    constant: '{{field}}必须是允许的值之一',
    unknownField: '未知字段 {{field}}',
    invalid: '{{field}}无效',
  },
  fields: {
    username: '用户名',
    password: '密码',
    email: '邮箱',
    name: '名称',
    cmd: '执行命令',
    cron: 'Cron 表达式',
    url: 'URL',
    events: '事件',
    role: '角色',
    description: '描述',
  },
};
