/**
 * What the master may use of the node to run a user's code on its own host (Scrapy introspection, the syntax check
 * of a converted spider, a project's workspace): the task identity, the sandbox and the environment a task gets.
 * The master imports nothing else of the node's internals.
 */
export { asTaskUser, baseEnv, giveTree, removeUserTreeAsync, taskIdentity, type TaskIdentity } from './sandbox.ts';
export { jailSupport, spawnJailed } from './tenancy/jail.ts';
