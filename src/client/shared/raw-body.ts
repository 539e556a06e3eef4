/**
 * A request body that is not JSON (a multipart file upload): its bytes and content type go out as
 * they are. Such a request is never repeated after it may have reached the server (like a POST),
 * because the server may have stored the upload before the connection broke.
 */
export class RawBody {
  constructor(
    readonly data: Buffer,
    readonly contentType: string,
  ) {}
}
