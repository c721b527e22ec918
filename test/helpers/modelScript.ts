// What the loopback model server (modelServer.ts) plays, turn by turn, so real agent CLIs
// complete real turns offline, and fail them, on purpose. A "turn request" is a request that
// carries the user's prompt and offers tools (the agent's main loop); each one takes the next
// step of the script. A request that carries the result of the step's tool call continues that
// step (its final reply). A client's retry of a turn request that an error step answered (the
// same conversation again) gets the same error and takes no step, so the turn fails however
// often the agent retries it. Anything else the agent asks on the side (a title, a next-speaker or
// loop check, a token count, the model list) gets a short, well-formed answer and takes no step.

export type ModelStep =
  /** Answer with this text; the turn ends. */
  | { reply: string; paceMs?: number }
  /** Call the agent's shell tool (found by its schema) to run `tool`; once the tool's result comes
   *  back, answer `reply` and the turn ends. A command that writes (e.g. "touch probe.txt") makes
   *  an agent that asks before running tools show its permission question. */
  | {
      tool: string;
      reply: string;
      /** What the call says it does, where the tool asks for one (default "Run <tool>"). */
      description?: string;
      /** More commands, called one by one as each result before comes back, before the reply:
       *  a turn of several tool calls, as an agent working a task makes. */
      more?: string[];
      /** The reply streams word by word, one word every paceMs (a long answer as a model writes
       *  it, so the TUI redraws as it arrives); by default it is sent at once. */
      paceMs?: number;
    }
  /** Answer with this HTTP error in the API's own error shape. 429 with retryAfterS also sends
   *  retry-after (and the vendor's reset headers), as a usage limit does. */
  | { error: 400 | 401 | 403 | 429 | 500 | 529; message?: string; retryAfterS?: number };

export interface ModelScript {
  /** Played in order, one per turn request. */
  steps: ModelStep[];
  /** What every turn request gets once the steps are used up (default: { reply: 'Done.' }). */
  then?: ModelStep;
}

/** The APIs the server speaks, as it recorded which one a request used. */
export type ModelApi = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | 'augment' | 'other';

export interface RecordedRequest {
  api: ModelApi;
  method: string;
  /** The path with its query. */
  path: string;
  stream: boolean;
  /** turn: took a step; continuation: carried a tool result; side: anything else. */
  kind: 'turn' | 'continuation' | 'side';
  /** The shell tool the server found among the offered tools (name), if any. */
  shellTool?: string;
  /** The last user text of the request (the prompt), if any. */
  prompt?: string;
  /** Set on a turn request that repeated the one before it after its error step (a client's
   *  retry): it got the same error again and took no new step. */
  retry?: boolean;
  /** The HTTP status the server answered with. */
  status: number;
  /** The request's raw body, for debugging. */
  body?: string;
}
