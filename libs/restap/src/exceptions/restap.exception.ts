import { HttpException } from '@nestjs/common';

/** Base of every error the module answers with: `{"error": code, "message": message}`. */
export class RestapException extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super({ error: code, message }, status);
  }

  toJSON(): { error: string; message: string } {
    return { error: this.code, message: this.message };
  }
}
