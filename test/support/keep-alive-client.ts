import { Agent, request } from "node:https";
import { assertAnswerMatchesContract } from "./openapi-contract.js";

/**
 * GET requests over one kept-alive HTTPS connection (thousands of requests, one handshake); answers
 * of servers from `startTestServer` are checked against the OpenAPI document.
 */
export class KeepAliveClient {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    ca: string,
    private readonly headers: Record<string, string>,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  }

  get(path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(`${this.baseUrl}${path}`),
        { method: "GET", headers: this.headers, agent: this.agent },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            try {
              assertAnswerMatchesContract(this.baseUrl, {
                method: "GET",
                path,
                status,
                headers: res.headers,
                body,
              });
            } catch (err) {
              reject(err);
              return;
            }
            resolve({ status, body });
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
