'use strict';
/** A self-signed certificate for 127.0.0.1 (openssl), for the https servers of the TLS and proxy tests. */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Makes one in a temporary folder: its key and certificate (PEM), the certificate's path, and `remove()`. */
function selfSignedCertificate(prefix = 'mindsdb-tls-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return {
    key: fs.readFileSync(keyPath),
    cert: fs.readFileSync(certPath),
    certPath,
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

module.exports = { selfSignedCertificate };
