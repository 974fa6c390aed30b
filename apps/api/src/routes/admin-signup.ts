// The platform admin's signup setting (tenancy/signup-settings.ts): a new account's dev allowance
// on the platform's keys, and whether it waits for the emailed confirmation. Admin bearer only.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { adminAuth } from '../http/auth.ts';
import { parseWith } from '../input/validate.ts';
import { signupSettingsWrite } from '../tenancy/signup-settings.ts';
import type { Services } from '../services.ts';

export function registerAdminSignupRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = adminAuth(s.adminAuth);

  app.get('/v1/admin/settings/signup', { onRequest }, async () => s.signup.settings.get());

  app.put('/v1/admin/settings/signup', { onRequest }, async (request) => {
    const write = parseWith(signupSettingsWrite, request.body);
    if (write.require_email_confirmation === true && !s.config.SMTP_URL) {
      throw new ApiError('validation_failed', 'require_email_confirmation needs the email channel: set SMTP_URL (the confirmation link goes out by email).', {
        param: 'require_email_confirmation',
      });
    }
    return s.signup.settings.put(write);
  });
}
