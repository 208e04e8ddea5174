/**
 * A second process for the tests (run by `inChild` in world.ts): builds its own stack over the SQLite file it is
 * given, does one task and prints its result as JSON on the last line of stdout.
 */
import { AIMessage } from '@langchain/core/messages';
import { MemChatMessageHistory } from '../src/index.js';
import { assistant, messageData } from './chain.js';
import { stackOn } from './world.js';

interface Task {
  task: 'history-read' | 'history-append' | 'ask';
  db: string;
  space: string;
  sessionId: string;
  text?: string;
  userId?: string;
  answers?: string[];
}

const task = JSON.parse(process.env.MEM_LC_CHILD ?? '{}') as Task;
const stack = stackOn(task.db);
try {
  let result: unknown;
  if (task.task === 'history-read') {
    const history = new MemChatMessageHistory({ stack, space: task.space, sessionId: task.sessionId });
    result = { pid: process.pid, messages: (await history.getMessages()).map(messageData) };
  } else if (task.task === 'history-append') {
    const history = new MemChatMessageHistory({ stack, space: task.space, sessionId: task.sessionId, distill: false });
    await history.addMessage(new AIMessage(task.text ?? ''));
    result = { pid: process.pid };
  } else {
    const app = assistant(stack, { space: task.space, userId: task.userId ?? 'ana', answers: task.answers ?? ['ok'] });
    const answer = await app.ask(task.sessionId, task.text ?? '');
    await app.flush();
    result = { pid: process.pid, prompts: app.prompts, answer: answer.content };
  }
  console.log(JSON.stringify(result));
} finally {
  await stack.close();
}
