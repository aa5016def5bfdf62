/**
 * A worker thread of `SqliteReadPool`: one `ReadConnection` answering its lane's selects in the
 * order they are sent. Started with `ReadConnectionOptions` as its data; each message is a
 * `ReadRequest`, each answer a `ReadAnswer` (a page's bytes transferred, not copied).
 */
import { parentPort, workerData } from "node:worker_threads";
import { ReadConnection, type ReadConnectionOptions } from "./read-connection.js";

const connection = new ReadConnection(workerData as ReadConnectionOptions);

parentPort?.on("message", (request) => {
  const answer = connection.answer(request);
  if ("page" in answer) parentPort?.postMessage(answer, [answer.page.buffer as ArrayBuffer]);
  else parentPort?.postMessage(answer);
});
