import { Migration } from '@mikro-orm/migrations';

export class Migration20261122023614_initial extends Migration {
  override name = 'Migration20261122023614_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "otp_requests" ("id" uuid not null default gen_random_uuid(), "identifier_hash" varchar(64) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "otp_requests_identifier_hash_created_at_index" on "otp_requests" ("identifier_hash", "created_at");`);

    this.addSql(
      `create table "rate_limits" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, primary key ("key"));`,
    );
    this.addSql(`create index "rate_limits_expire_index" on "rate_limits" ("expire");`);

    this.addSql(
      `create table "token_blocklist" ("token_hash" varchar(64) not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("token_hash"));`,
    );
    this.addSql(`create index "token_blocklist_expires_at_index" on "token_blocklist" ("expires_at");`);

    this.addSql(
      `create table "users" ("id" uuid not null default gen_random_uuid(), "phone_encrypted" text null, "phone_hash" varchar(64) null, "email_encrypted" text null, "email_hash" varchar(64) null, "name" varchar(255) not null, "app_role" text not null default 'end_user', "identity_type" text not null default 'citizen', "is_active" boolean not null default true, "verified_at" timestamptz null, "managed_areas" text[] null, "managed_areas_write" text[] null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_phone_hash_unique" unique ("phone_hash");`);
    this.addSql(`alter table "users" add constraint "users_email_hash_unique" unique ("email_hash");`);

    this.addSql(
      `create table "sessions" ("id" uuid not null default gen_random_uuid(), "user_id" uuid not null, "client_type" text not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);

    this.addSql(
      `create table "otp_challenges" ("id" uuid not null default gen_random_uuid(), "purpose" text not null, "user_id" uuid not null, "phone_hash" varchar(64) null, "email_hash" varchar(64) null, "code_hash" varchar(64) not null, "attempts" int not null default 0, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "otp_challenges_user_id_index" on "otp_challenges" ("user_id");`);
    this.addSql(`create index "otp_challenges_phone_hash_created_at_index" on "otp_challenges" ("phone_hash", "created_at");`);
    this.addSql(`create index "otp_challenges_email_hash_created_at_index" on "otp_challenges" ("email_hash", "created_at");`);

    this.addSql(
      `create table "invitation_links" ("id" uuid not null default gen_random_uuid(), "token_hash" varchar(64) not null, "user_id" uuid not null, "company_id" uuid null, "package_id" uuid null, "status" text not null default 'issued', "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "invitation_links" add constraint "invitation_links_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "invitation_links_user_id_index" on "invitation_links" ("user_id");`);
    this.addSql(`create index "invitation_links_company_id_index" on "invitation_links" ("company_id");`);

    this.addSql(
      `create table "consents" ("id" uuid not null default gen_random_uuid(), "user_id" uuid not null, "type" text not null, "version" varchar(64) not null, "recorded_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "consents_user_id_index" on "consents" ("user_id");`);

    this.addSql(
      `alter table "users" add constraint "users_app_role_check" check ("app_role" in ('end_user', 'b2b_admin', 'activation_officer', 'support', 'admin', 'super_admin'));`,
    );
    this.addSql(
      `alter table "users" add constraint "users_identity_type_check" check ("identity_type" in ('citizen', 'resident', 'visitor'));`,
    );

    this.addSql(
      `alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "sessions" add constraint "sessions_client_type_check" check ("client_type" in ('mobile', 'web'));`);

    this.addSql(
      `alter table "otp_challenges" add constraint "otp_challenges_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "otp_challenges" add constraint "otp_challenges_purpose_check" check ("purpose" in ('register', 'login', 'change_phone'));`,
    );

    this.addSql(
      `alter table "invitation_links" add constraint "invitation_links_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "invitation_links" add constraint "invitation_links_status_check" check ("status" in ('issued', 'sent', 'exported', 'used', 'expired', 'failed', 'revoked'));`,
    );

    this.addSql(
      `alter table "consents" add constraint "consents_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "consents" add constraint "consents_type_check" check ("type" in ('terms_of_service', 'privacy_policy', 'data_processing', 'marketing'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_user_id_foreign";`);
    this.addSql(`alter table "otp_challenges" drop constraint "otp_challenges_user_id_foreign";`);
    this.addSql(`alter table "invitation_links" drop constraint "invitation_links_user_id_foreign";`);
    this.addSql(`alter table "consents" drop constraint "consents_user_id_foreign";`);

    this.addSql(`drop table if exists "otp_requests" cascade;`);
    this.addSql(`drop table if exists "rate_limits" cascade;`);
    this.addSql(`drop table if exists "token_blocklist" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
    this.addSql(`drop table if exists "otp_challenges" cascade;`);
    this.addSql(`drop table if exists "invitation_links" cascade;`);
    this.addSql(`drop table if exists "consents" cascade;`);
  }
}
