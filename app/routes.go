package app

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"crm/app/auth"
	"crm/app/session"
	"crm/app/settings"
	"crm/app/store"
	"crm/app/web"
)

// routes is the one map of the URL surface: public, signed-in pages, and /v1/api.
func (s *server) routes(h handlers) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	r.Use(web.QueryStats(s.cfg.ServerTiming)) // first: the metrics and the access log read it
	if s.cfg.TrustProxy {
		r.Use(middleware.RealIP)
	}
	r.Use(s.metrics.Middleware)
	r.Use(s.web.AccessLog)
	r.Use(s.web.RecoverPanics)
	r.Use(web.SecurityHeaders)
	r.Use(web.Compress("text/html", "text/css", "application/javascript", "text/javascript",
		"application/json", "image/svg+xml", "application/manifest+json"))

	// Process-level endpoints: no session, no language.
	r.Get("/healthz", s.handleHealth)
	r.Get("/readyz", s.handleReady)
	// Metrics are for operators: on this address only behind METRICS_TOKEN; otherwise on
	// the separate --metrics-addr listener (cmd/crm), or not at all.
	if s.cfg.MetricsToken != "" {
		r.With(web.RequireBearer(s.cfg.MetricsToken)).Method(http.MethodGet, "/metrics", s.metrics.Handler())
	}
	r.Method(http.MethodGet, "/static/build/*", s.web.Assets.Handler())

	// Everything else: forgery protection, session, caller, language.
	r.Group(func(r chi.Router) {
		cop := s.web.CrossOriginProtection()
		// RFC 8058's one-click unsubscribe POST comes from mail providers, maybe with another
		// origin's headers; it acts on its unguessable token alone, never on a session.
		cop.AddInsecureBypassPattern("POST /unsubscribe/{token}")
		r.Use(cop.Handler)
		r.Use(middleware.Timeout(30 * time.Second))
		r.Use(s.web.Sessions.LoadAndSave)
		r.Use(s.web.Authenticate)
		r.Use(s.web.Localize)
		r.Use(s.web.CleanQuery)
		r.NotFound(s.handleNotFound)
		r.MethodNotAllowed(s.handleMethodNotAllowed)

		r.With(s.web.RequireAuth).Get("/", s.web.Home) // the caller's landing page
		r.Get("/login", h.session.LoginPage)
		r.With(s.web.RequireSignIn).Post("/logout", h.session.Logout) // also for a user who must enrol in two-factor first
		r.Post("/login", h.session.LoginSubmit)
		// Sign-in with the tenant's identity provider (app/sso): the spec's path, any OIDC provider.
		r.Get("/login/sso", h.sso.Choose)
		r.Get("/auth/google", h.sso.Start)
		r.Get("/auth/google/callback", h.sso.Callback)
		r.Post("/language", h.session.Language)
		r.Get("/invite/{token}", h.users.InvitePage)
		r.Post("/invite/{token}", h.users.InvitePage)
		// MAIL-ROUTES-BEGIN (app/emails): the public one-click unsubscribe of bulk mail.
		r.Get("/unsubscribe/{token}", h.emails.Unsubscribe)
		r.Post("/unsubscribe/{token}", h.emails.Unsubscribe)
		// MAIL-ROUTES-END

		// PROFILE-ROUTES-BEGIN: my profile, two-factor sign-in, forgotten passwords (app/profile;
		// the second sign-in step is app/session's). Public: the second step of a sign-in under
		// way, the forgotten-password form and the reset link. Any signed-in user: their own
		// profile; the two-factor enrolment and signing out also serve a user whose role
		// requires two-factor and who has not enrolled (RequireSignIn), everything else sends
		// them there (RequireAuth).
		r.Get("/login/two-factor", h.session.TwoFactorPage)
		r.Post("/login/two-factor", h.session.TwoFactorSubmit)
		r.Get("/forgot-password", h.profile.ForgotPage)
		r.Post("/forgot-password", h.profile.ForgotSubmit)
		r.Get("/reset-password/{token}", h.profile.ResetPage)
		r.Post("/reset-password/{token}", h.profile.ResetPage)
		r.Post("/v1/api/auth/login/two-factor", h.session.APILoginTwoFactor)
		r.With(s.web.RequireSignIn).Get("/profile/two-factor", h.profile.EnrolPage)
		r.With(s.web.RequireSignIn).Post("/profile/two-factor", h.profile.EnrolSubmit)
		r.Group(func(r chi.Router) {
			r.Use(s.web.RequireAuth)
			r.Get("/profile", h.profile.ProfilePage)
			r.Post("/profile", h.profile.ProfileSubmit)
			r.Post("/profile/password", h.profile.PasswordSubmit)
			r.Post("/profile/tokens", h.profile.TokenCreate)
			r.Get("/profile/tokens/{id}/revoke", h.profile.TokenRevokePage)
			r.Post("/profile/tokens/{id}/revoke", h.profile.TokenRevokePage)
			r.Post("/profile/sessions/sign-out", h.profile.SignOutEverywhere)
			r.Post("/profile/two-factor/disable", h.profile.DisableSubmit)
			r.Post("/profile/two-factor/recovery-codes", h.profile.RecoveryCodesSubmit)
			r.Put("/v1/api/update-profile", h.profile.UpdateProfile)
			r.Put("/v1/api/change-password", h.profile.ChangePassword)
			r.Get("/v1/api/list-api-token", h.profile.TokenList)
			r.Post("/v1/api/create-api-token", h.profile.TokenCreateAPI)
			r.Delete("/v1/api/delete-api-token/{id}", h.profile.TokenDelete)
			r.Get("/v1/api/list-session", h.profile.SessionList)
			r.Post("/v1/api/sign-out-everywhere", h.profile.SignOutEverywhereAPI)
		})
		r.With(s.web.RequireAuth, s.web.Can(auth.FeatureRoles, auth.Update)).Post("/roles/{id}/two-factor", h.roles.RoleTwoFactorPage)
		// PROFILE-ROUTES-END

		r.Group(func(r chi.Router) {
			r.Use(s.web.RequireAuth)
			r.With(s.web.Can(auth.FeatureDashboard, auth.View)).Get("/home", h.dashboard.Home)

			// Admin lead and settings pages (app/leads, app/settings).
			leadPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureLeads, a) }
			r.With(leadPage(auth.View)).Get("/leads", h.leads.LeadsPage)
			r.With(leadPage(auth.Update)).Post("/leads/bulk/update", h.leads.LeadsBulkUpdate)
			r.With(leadPage(auth.Delete)).Post("/leads/bulk/delete", h.leads.LeadsBulkDelete)
			r.With(leadPage(auth.View)).Post("/leads/views", h.leads.SavedViewSavePage)
			r.With(leadPage(auth.View)).Post("/leads/views/{id}/delete", h.leads.SavedViewDeletePage)
			r.With(leadPage(auth.Create)).Get("/leads/new", h.leads.LeadNewPage)
			r.With(leadPage(auth.Create)).Post("/leads/new", h.leads.LeadCreatePage)
			r.With(leadPage(auth.View)).Get("/leads/board", h.leads.BoardPage)
			r.With(leadPage(auth.View)).Get("/leads/board/more", h.leads.BoardMore)
			r.With(leadPage(auth.View)).Get("/leads/{id}", h.leads.LeadPage)
			r.With(leadPage(auth.Update)).Get("/leads/{id}/edit", h.leads.LeadEditPage)
			r.With(leadPage(auth.Update)).Post("/leads/{id}/edit", h.leads.LeadUpdatePage)
			r.With(leadPage(auth.Update)).Post("/leads/{id}/stage", h.leads.LeadFieldPage(store.FieldStage))
			r.With(leadPage(auth.Update)).Post("/leads/{id}/status", h.leads.LeadFieldPage(store.FieldStatus))
			r.With(leadPage(auth.Delete)).Get("/leads/{id}/delete", h.leads.LeadDeletePage)
			r.With(leadPage(auth.Delete)).Post("/leads/{id}/delete", h.leads.LeadDeleteSubmit)
			settingsPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureSettings, a) }
			r.With(settingsPage(auth.View)).Get("/settings", h.settings.SettingsHome)
			r.With(settingsPage(auth.View)).Get("/settings/masters/{kind}", h.settings.MastersPage)
			r.With(settingsPage(auth.Create)).Post("/settings/masters/{kind}", h.settings.MasterAddPage)
			r.With(settingsPage(auth.Update)).Post("/settings/masters/{kind}/{id}/rename", h.settings.MasterRenamePage)
			r.With(settingsPage(auth.Update)).Post("/settings/masters/{kind}/{id}/move", h.settings.MasterMovePage)
			r.With(settingsPage(auth.Delete)).Get("/settings/masters/{kind}/{id}/delete", h.settings.MasterDeletePage)
			r.With(settingsPage(auth.Delete)).Post("/settings/masters/{kind}/{id}/delete", h.settings.MasterDeleteSubmit)
			r.With(settingsPage(auth.View)).Get("/settings/stages", h.settings.StageSettingsPage)
			r.With(settingsPage(auth.Update)).Post("/settings/stages", h.settings.StageSettingsSubmit)
			r.With(settingsPage(auth.View)).Get("/settings/sso", h.sso.SettingsPage)
			r.With(settingsPage(auth.Update)).Post("/settings/sso", h.sso.SettingsSubmit)
			// MAIL-PAGES-BEGIN (app/emails): SMTP settings, test message, email history (Settings area).
			r.With(settingsPage(auth.View)).Get("/settings/mail", h.emails.SettingsPage)
			r.With(settingsPage(auth.Update)).Post("/settings/mail", h.emails.SettingsSubmit)
			r.With(settingsPage(auth.Update)).Post("/settings/mail/test", h.emails.TestSubmit)
			r.With(settingsPage(auth.View)).Get("/emails", h.emails.HistoryPage)
			r.With(settingsPage(auth.View)).Get("/emails/{id}", h.emails.DetailPage)
			// MAIL-PAGES-END
			// CAMPAIGNS-PAGES-BEGIN (app/campaigns): email templates (Settings, like the masters)
			// and bulk email to leads: viewing and updating leads (the lead list's bulk tools
			// are for those who act on leads); the preview also checks that the caller may
			// view the kind of record it renders.
			r.With(settingsPage(auth.View)).Get("/settings/templates", h.campaigns.TemplatesPage)
			r.With(settingsPage(auth.Create)).Get("/settings/templates/new", h.campaigns.NewTemplatePage)
			r.With(settingsPage(auth.Create)).Post("/settings/templates/new", h.campaigns.CreateTemplatePage)
			r.With(settingsPage(auth.View)).Post("/settings/templates/preview", h.campaigns.PreviewFragment)
			r.With(settingsPage(auth.View)).Get("/settings/templates/{id}", h.campaigns.TemplatePage)
			r.With(settingsPage(auth.Update)).Post("/settings/templates/{id}", h.campaigns.UpdateTemplatePage)
			r.With(settingsPage(auth.Delete)).Get("/settings/templates/{id}/delete", h.campaigns.DeleteTemplatePage)
			r.With(settingsPage(auth.Delete)).Post("/settings/templates/{id}/delete", h.campaigns.DeleteTemplatePage)
			r.With(leadPage(auth.View), leadPage(auth.Update)).Post("/leads/bulk/email", h.campaigns.BulkEmailPage)
			r.With(leadPage(auth.View), leadPage(auth.Update)).Post("/leads/bulk/email/send", h.campaigns.BulkEmailSend)
			r.With(leadPage(auth.View), leadPage(auth.Update)).Get("/emails/sends/{id}", h.campaigns.ReportPage)
			// CAMPAIGNS-PAGES-END

			// Team administration (app/roles): roles and their matrix need roles; teams need users.
			rolePage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureRoles, a) }
			r.With(rolePage(auth.View)).Get("/roles", h.roles.RolesPage)
			r.With(rolePage(auth.Create)).Post("/roles", h.roles.RoleCreatePage)
			r.With(rolePage(auth.View)).Get("/roles/{id}", h.roles.RolePage)
			r.With(rolePage(auth.Update)).Post("/roles/{id}", h.roles.RoleRenamePage)
			r.With(rolePage(auth.Update)).Post("/roles/{id}/permissions", h.roles.RolePermissionsPage)
			r.With(rolePage(auth.Delete)).Get("/roles/{id}/delete", h.roles.RoleDeletePage)
			r.With(rolePage(auth.Delete)).Post("/roles/{id}/delete", h.roles.RoleDeleteSubmit)
			teamPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureUsers, a) }
			r.With(teamPage(auth.View)).Get("/teams", h.roles.TeamsPage)
			r.With(teamPage(auth.Create)).Post("/teams", h.roles.TeamCreatePage)
			r.With(teamPage(auth.View)).Get("/teams/{id}", h.roles.TeamPage)
			r.With(teamPage(auth.Update)).Post("/teams/{id}", h.roles.TeamRenamePage)
			r.With(teamPage(auth.Update)).Post("/teams/{id}/members", h.roles.TeamAddMemberPage)
			r.With(teamPage(auth.Update)).Post("/teams/{id}/members/{user}/remove", h.roles.TeamRemoveMemberPage)
			r.With(teamPage(auth.Delete)).Post("/teams/{id}/delete", h.roles.TeamDeletePage)

			// Users admin pages and the security log (app/users): the users feature, as the API.
			userPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureUsers, a) }
			r.With(userPage(auth.View)).Get("/users", h.users.UsersPage)
			r.With(userPage(auth.Create)).Get("/users/new", h.users.NewUserPage)
			r.With(userPage(auth.Create)).Post("/users/new", h.users.CreateUserPage)
			r.With(userPage(auth.View)).Get("/users/{id}", h.users.UserPage)
			r.With(userPage(auth.Update)).Get("/users/{id}/edit", h.users.EditUserPage)
			r.With(userPage(auth.Update)).Post("/users/{id}/edit", h.users.UpdateUserPage)
			r.With(userPage(auth.Update)).Post("/users/{id}/status", h.users.UserStatusPage)
			r.With(userPage(auth.Delete)).Get("/users/{id}/delete", h.users.DeleteUserPage)
			r.With(userPage(auth.Delete)).Post("/users/{id}/delete", h.users.DeleteUserSubmit)
			r.With(userPage(auth.View)).Get("/security-log", h.users.SecurityLogPage)

			// Client, document and reminder pages (app/clients, app/documents, app/reminders).
			clientPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureClients, a) }
			r.With(clientPage(auth.View)).Get("/clients", h.clients.ClientsPage)
			r.With(clientPage(auth.Update)).Post("/clients/bulk/owner", h.clients.ClientsBulkOwner)
			r.With(clientPage(auth.Delete)).Post("/clients/bulk/delete", h.clients.ClientsBulkDelete)
			r.With(clientPage(auth.Create)).Get("/clients/new", h.clients.ClientNewPage)
			r.With(clientPage(auth.Create)).Post("/clients/new", h.clients.ClientCreatePage)
			r.With(clientPage(auth.View)).Get("/clients/{id}", h.clients.ClientPage)
			r.With(clientPage(auth.Update)).Get("/clients/{id}/edit", h.clients.ClientEditPage)
			r.With(clientPage(auth.Update)).Post("/clients/{id}/edit", h.clients.ClientUpdatePage)
			r.With(clientPage(auth.Delete)).Get("/clients/{id}/delete", h.clients.ClientDeletePage)
			r.With(clientPage(auth.Delete)).Post("/clients/{id}/delete", h.clients.ClientDeleteSubmit)
			r.With(clientPage(auth.Create), leadPage(auth.Update)).Post("/leads/{id}/convert", h.clients.LeadConvertPage)
			for _, e := range store.Entities {
				can := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(e.Feature, a) }
				r.With(can(auth.Create)).Post(e.Pages+"/{id}/documents", h.documents.DocumentUploadPage(e.Name))
				r.With(can(auth.Update)).Get(e.Pages+"/{id}/documents/{docID}/edit", h.documents.DocumentEditPage(e.Name))
				r.With(can(auth.Update)).Post(e.Pages+"/{id}/documents/{docID}/edit", h.documents.DocumentEditPage(e.Name))
				r.With(can(auth.Delete)).Get(e.Pages+"/{id}/documents/{docID}/delete", h.documents.DocumentDeletePage(e.Name))
				r.With(can(auth.Delete)).Post(e.Pages+"/{id}/documents/{docID}/delete", h.documents.DocumentDeletePage(e.Name))
			}
			r.With(leadPage(auth.Create)).Post("/leads/{id}/reminders", h.reminders.ReminderCreatePage)
			// CLIENT REMINDERS: a reminder belongs to a lead or a client, whose feature counts;
			// routes naming a reminder admit either feature and the handler refuses the other
			// kind with 403.
			remindAny := func(a auth.Action) func(http.Handler) http.Handler {
				return s.web.CanAny(web.Need{Feature: auth.FeatureLeads, Action: a}, web.Need{Feature: auth.FeatureClients, Action: a})
			}
			r.With(clientPage(auth.Create)).Post("/clients/{id}/reminders", h.reminders.ClientReminderCreatePage)
			r.With(remindAny(auth.Update)).Get("/reminders/{id}/edit", h.reminders.ReminderEditPage)
			r.With(remindAny(auth.Update)).Post("/reminders/{id}/edit", h.reminders.ReminderEditPage)
			r.With(remindAny(auth.Update)).Post("/reminders/{id}/done", h.reminders.ReminderDonePage)
			r.With(remindAny(auth.Delete)).Get("/reminders/{id}/delete", h.reminders.ReminderDeletePage)
			r.With(remindAny(auth.Delete)).Post("/reminders/{id}/delete", h.reminders.ReminderDeletePage)
			r.With(remindAny(auth.View)).Get("/notifications", h.reminders.NotificationsPage)
			// End of client reminders.
			// End of client, document and reminder pages.

			// KEEP-IN-TOUCH PAGES (app/kit): a plan belongs to a lead or a client, whose feature
			// counts (view to see, update to change); routes that name no record admit either
			// feature and the store refuses a plan of the other kind with 403.
			kitSee := s.web.CanAny(web.Need{Feature: auth.FeatureLeads, Action: auth.View}, web.Need{Feature: auth.FeatureClients, Action: auth.View})
			kitChange := s.web.CanAny(web.Need{Feature: auth.FeatureLeads, Action: auth.Update}, web.Need{Feature: auth.FeatureClients, Action: auth.Update})
			for _, e := range store.Entities {
				r.With(s.web.Can(e.Feature, auth.Update)).Post(e.Pages+"/{id}/keep-in-touch", h.kit.CreatePage(e.Name))
			}
			r.With(kitSee).Get("/keep-in-touch", h.kit.ListPage)
			r.With(kitChange).Get("/keep-in-touch/{id}/edit", h.kit.EditPage)
			r.With(kitChange).Post("/keep-in-touch/{id}/edit", h.kit.EditPage)
			r.With(kitChange).Post("/keep-in-touch/{id}/active", h.kit.ActivePage)
			r.With(kitChange).Post("/keep-in-touch/{id}/send", h.kit.SendPage)
			r.With(kitChange).Get("/keep-in-touch/{id}/delete", h.kit.DeletePage)
			r.With(kitChange).Post("/keep-in-touch/{id}/delete", h.kit.DeletePage)
			// END KEEP-IN-TOUCH PAGES.
		})

		// Mobile lead manager pages (app/session/mobile.go).
		// MOBILE-ROUTES-BEGIN
		r.Get("/m", h.session.MobileRedirect)
		r.Get("/m/", h.session.MobileRedirect)
		r.Get("/m/*", h.session.MobileRedirect)
		r.Get("/m/login", h.session.MobileLoginPage)
		r.Post("/m/login", h.session.MobileLoginSubmit)
		r.Get("/m/sw.js", h.session.MobileServiceWorker)
		r.Get("/locales/mobile/{file}", h.session.MobileLocale)
		r.Get("/v1/api/config.json", h.session.MobileConfig)
		r.Group(func(r chi.Router) {
			r.Use(s.web.RequireAuth, s.web.Can(auth.FeatureLeads, auth.View)) // the mobile app is a lead manager
			for _, path := range session.MobileScreens {
				r.Get(path, h.session.MobileScreen)
			}
		})
		// MOBILE-ROUTES-END

		r.Route("/v1/api", func(r chi.Router) {
			r.NotFound(s.handleNotFound)
			r.MethodNotAllowed(s.handleMethodNotAllowed)
			r.Post("/auth/login", h.session.APILogin)
			r.With(s.web.RequireSignIn).Post("/auth/logout", h.session.APILogout) // also before a required two-factor enrolment
			r.Get("/openapi.json", s.handleOpenAPI)
			r.Group(func(r chi.Router) {
				r.Use(s.web.RequireAuth)
				r.Get("/auth/me", h.session.APIMe)
				r.Get("/get-allow-feature", h.session.AllowedFeatures)

				// Users and the security log (app/users).
				usersView := s.web.Can(auth.FeatureUsers, auth.View)
				r.With(usersView).Get("/list-user", h.users.List)
				r.With(usersView).Get("/view-user/{id}", h.users.View)
				r.Get("/get-user", h.users.Me)
				r.With(s.web.Can(auth.FeatureUsers, auth.Create)).Post("/add-user", h.users.Create)
				r.With(s.web.Can(auth.FeatureUsers, auth.Create)).Post("/create-user", h.users.Create)
				r.With(s.web.Can(auth.FeatureUsers, auth.Update)).Put("/update-user/{id}", h.users.Update)
				r.With(s.web.Can(auth.FeatureUsers, auth.Update)).Patch("/status-update-user/{id}", h.users.Status)
				r.With(s.web.Can(auth.FeatureUsers, auth.Delete)).Delete("/delete-user/{id}", h.users.Delete)
				r.With(s.web.Can(auth.FeatureUsers, auth.Create)).Get("/check-user", h.users.Check)
				r.With(usersView).Get("/dropdown-role-master", h.users.Roles)
				r.With(usersView).Get("/list-security-log", h.users.SecurityLog)

				leadsView := s.web.Can(auth.FeatureLeads, auth.View)
				r.With(leadsView).Get("/lead/list-customer-lead", h.leads.LeadList)
				r.With(leadsView).Get("/lead/view-customer-lead/{id}", h.leads.LeadView)
				r.With(leadsView).Get("/lead/logo/{id}", h.leads.LeadLogo)
				r.With(s.web.Can(auth.FeatureLeads, auth.Create)).Post("/lead/create-customer-lead", h.leads.LeadCreate)
				r.With(s.web.Can(auth.FeatureLeads, auth.Delete)).Delete("/lead/delete-customer-lead/{id}", h.leads.LeadDelete)

				leadsUpdate := s.web.Can(auth.FeatureLeads, auth.Update)
				leadsDelete := s.web.Can(auth.FeatureLeads, auth.Delete)
				r.With(leadsUpdate).Put("/lead/update-customer-lead/{id}", h.leads.LeadUpdate)
				r.With(leadsUpdate).Patch("/lead/update-stage-customer-lead/{id}", h.leads.LeadSetField(store.FieldStage))
				r.With(leadsUpdate).Patch("/lead/update-status-customer-lead/{id}", h.leads.LeadSetField(store.FieldStatus))
				r.With(leadsUpdate).Patch("/lead/update-owner-customer-lead/{id}", h.leads.LeadSetField(store.FieldOwner))
				r.With(leadsUpdate).Patch("/lead/bulk-update-customer-lead", h.leads.LeadBulkUpdate)
				r.With(leadsDelete).Delete("/lead/delete-customer-lead", h.leads.LeadDeleteMany)
				r.With(leadsView).Get("/lead/list-customer-journey", h.leads.LeadJourney)
				r.With(leadsView).Get("/lead/duplicate-customer-lead", h.leads.LeadDuplicates)
				r.With(leadsView).Get("/lead/dropdown-customer-lead", h.leads.LeadDropdown)
				r.With(leadsView).Get("/lead/list-saved-view", h.leads.SavedViewList)
				r.With(leadsView).Post("/lead/create-saved-view", h.leads.SavedViewCreate)
				r.With(leadsView).Delete("/lead/delete-saved-view/{id}", h.leads.SavedViewDelete)

				// Lead conversion, documents and reminders ("remainders" in the spec's paths).
				r.With(s.web.Can(auth.FeatureClients, auth.Create), leadsUpdate).Post("/lead/convert-to-client/{id}", h.clients.LeadConvert)
				for _, e := range store.Entities {
					can := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(e.Feature, a) }
					r.With(can(auth.Create)).Post("/"+e.Name+"/create-document/{id}", h.documents.DocumentUpload(e.Name))
					r.With(can(auth.View)).Get("/"+e.Name+"/list-document/{id}", h.documents.DocumentList(e.Name))
					r.With(can(auth.View)).Get("/"+e.Name+"/view-document/{id}", h.documents.DocumentView(e.Name))
					r.With(can(auth.View)).Get("/"+e.Name+"/download-document/{id}", h.documents.DocumentDownload(e.Name))
					r.With(can(auth.Update)).Put("/"+e.Name+"/update-document/{id}", h.documents.DocumentUpdate(e.Name))
					r.With(can(auth.Delete)).Delete("/"+e.Name+"/delete-document/{id}", h.documents.DocumentDelete(e.Name))
				}
				// CLIENT REMINDERS API: a reminder of a lead (lead_id) or of a client (client_id);
				// the routes admit either feature, the store refuses the other kind with 403.
				remindAnyAPI := func(a auth.Action) func(http.Handler) http.Handler {
					return s.web.CanAny(web.Need{Feature: auth.FeatureLeads, Action: a}, web.Need{Feature: auth.FeatureClients, Action: a})
				}
				r.With(remindAnyAPI(auth.Create)).Post("/lead/create-remainders", h.reminders.ReminderCreate)
				r.With(remindAnyAPI(auth.View)).Get("/lead/list-remainders", h.reminders.ReminderList)
				r.With(remindAnyAPI(auth.View)).Get("/lead/view-remainders/{id}", h.reminders.ReminderView)
				r.With(remindAnyAPI(auth.Update)).Put("/lead/update-remainders/{id}", h.reminders.ReminderUpdate)
				r.With(remindAnyAPI(auth.Delete)).Delete("/lead/delete-remainders/{id}", h.reminders.ReminderDelete)
				r.With(remindAnyAPI(auth.View)).Get("/notifications", h.reminders.Notifications)
				// End of client reminders API.

				// Clients.
				clients := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureClients, a) }
				r.With(clients(auth.Create)).Post("/client/create-customer-client", h.clients.ClientCreate)
				r.With(clients(auth.Update)).Put("/client/update-customer-client/{id}", h.clients.ClientUpdate)
				r.With(clients(auth.View)).Get("/client/view-customer-client/{id}", h.clients.ClientView)
				r.With(clients(auth.Delete)).Delete("/client/delete-customer-client/{id}", h.clients.ClientDelete)
				r.With(clients(auth.View)).Get("/client/list-customer-client", h.clients.ClientList)
				r.With(clients(auth.Update)).Patch("/client/bulk-update-customer-client", h.clients.ClientBulkUpdate)
				r.With(clients(auth.Delete)).Delete("/client/delete-customer-client", h.clients.ClientDeleteMany)

				// KEEP-IN-TOUCH API (app/kit, spec "/kit/"): see the pages' block for the permissions.
				kitSeeAPI := s.web.CanAny(web.Need{Feature: auth.FeatureLeads, Action: auth.View}, web.Need{Feature: auth.FeatureClients, Action: auth.View})
				kitChangeAPI := s.web.CanAny(web.Need{Feature: auth.FeatureLeads, Action: auth.Update}, web.Need{Feature: auth.FeatureClients, Action: auth.Update})
				r.With(kitChangeAPI).Post("/kit/create-keep-in-touch", h.kit.Create)
				r.With(kitSeeAPI).Get("/kit/view-keep-in-touch/{id}", h.kit.View)
				r.With(kitSeeAPI).Get("/kit/list-keep-in-touch", h.kit.List)
				r.With(kitChangeAPI).Put("/kit/update-keep-in-touch/{id}", h.kit.Update)
				r.With(kitChangeAPI).Delete("/kit/delete-keep-in-touch/{id}", h.kit.Delete)
				r.With(kitSeeAPI).Get("/kit/dropdown-keep-in-touch-type", h.kit.TypeDropdown)
				r.With(kitSeeAPI).Get("/kit/dropdown-interval-type", h.kit.IntervalDropdown)
				r.With(kitChangeAPI).Post("/kit/send-now/{id}", h.kit.SendNow)
				r.With(kitSeeAPI).Get("/kit/dashboard/meeting", h.kit.MeetingDashboard)
				// END KEEP-IN-TOUCH API.

				// Dashboards (app/dashboard): figures of a period in the caller's record scope.
				dashboardView := s.web.Can(auth.FeatureDashboard, auth.View)
				r.With(dashboardView, s.web.Can(auth.FeatureLeads, auth.View)).Get("/lead/dashboard/lead", h.dashboard.LeadDashboard)
				r.With(dashboardView, s.web.Can(auth.FeatureLeads, auth.View)).Get("/lead/dashboard/lead-overview", h.dashboard.LeadOverview)
				r.With(dashboardView, s.web.Can(auth.FeatureClients, auth.View)).Get("/client/dashboard/client", h.dashboard.ClientDashboard)

				// Masters (Settings area); their dropdowns serve anyone working with leads.
				// Roles and their permission matrix (roles), teams and their members (users).
				rolesCan := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureRoles, a) }
				r.With(rolesCan(auth.View)).Get("/list-role-master", h.roles.RoleList)
				r.With(rolesCan(auth.View)).Get("/view-role-master/{id}", h.roles.RoleView)
				r.With(rolesCan(auth.Create)).Post("/create-role-master", h.roles.RoleCreate)
				r.With(rolesCan(auth.Update)).Put("/update-role-master/{id}", h.roles.RoleUpdate)
				r.With(rolesCan(auth.Delete)).Delete("/delete-role-master/{id}", h.roles.RoleDelete)
				r.With(rolesCan(auth.View)).Get("/list-role-permission", h.roles.PermissionList)
				r.With(rolesCan(auth.View)).Get("/view-role-permission/{id}", h.roles.RoleView)
				r.With(rolesCan(auth.Update)).Put("/update-role-permission/{id}", h.roles.PermissionUpdate)
				teamsCan := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureUsers, a) }
				r.With(teamsCan(auth.View)).Get("/list-team-master", h.roles.TeamList)
				r.With(teamsCan(auth.View)).Get("/view-team-master/{id}", h.roles.TeamView)
				r.With(teamsCan(auth.Create)).Post("/create-team-master", h.roles.TeamCreate)
				r.With(teamsCan(auth.Update)).Put("/update-team-master/{id}", h.roles.TeamUpdate)
				r.With(teamsCan(auth.Delete)).Delete("/delete-team-master/{id}", h.roles.TeamDelete)
				r.With(teamsCan(auth.Update)).Post("/add-team-member/{id}", h.roles.TeamAddMember)
				r.With(teamsCan(auth.Update)).Post("/remove-team-member/{id}", h.roles.TeamRemoveMember)

				settingsCan := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureSettings, a) }
				for _, fam := range settings.MasterFamilies {
					r.With(leadsView).Get("/dropdown-"+fam.Path, h.settings.Dropdown(fam.Kind))
					r.With(settingsCan(auth.View)).Get("/list-"+fam.Path, h.settings.MasterList(fam.Kind))
					r.With(settingsCan(auth.View)).Get("/view-"+fam.Path+"/{id}", h.settings.MasterView(fam.Kind))
					r.With(settingsCan(auth.Create)).Post("/create-"+fam.Path, h.settings.MasterCreate(fam.Kind))
					r.With(settingsCan(auth.Update)).Put("/update-"+fam.Path+"/{id}", h.settings.MasterUpdate(fam.Kind))
					r.With(settingsCan(auth.Delete)).Delete("/delete-"+fam.Path+"/{id}", h.settings.MasterDelete(fam.Kind))
				}
				// The spec's "dropdown-lead-stage-master/" takes the id appended (spec §7).
				r.With(leadsView).Get("/dropdown-lead-stage-master/{id}", h.settings.DropdownOne(store.KindStage))
				r.With(settingsCan(auth.Update)).Put("/update-lead-stage-order", h.settings.StageOrder)
				r.With(settingsCan(auth.View)).Get("/view-or-create-lead-stage-setting", h.settings.StageSettingsView)
				r.With(settingsCan(auth.Update)).Put("/update-lead-stage-setting", h.settings.StageSettingsUpdate)

				// MAIL-API-BEGIN (app/emails): SMTP settings, test message, email history (Settings area).
				r.With(settingsCan(auth.View)).Get("/view-mail-setting", h.emails.ViewSettings)
				r.With(settingsCan(auth.Update)).Put("/update-mail-setting", h.emails.UpdateSettings)
				r.With(settingsCan(auth.Update)).Post("/send-test-email", h.emails.SendTest)
				r.With(settingsCan(auth.View)).Get("/list-email-history", h.emails.History)
				r.With(settingsCan(auth.View)).Get("/view-email-history/{id}", h.emails.View)
				// MAIL-API-END
				// CAMPAIGNS-API-BEGIN (app/campaigns): the template master (Settings; its dropdown
				// serves anyone working with leads) and bulk email (leads view + update).
				r.With(leadsView).Get("/dropdown-template-master", h.campaigns.TemplateDropdown)
				r.With(settingsCan(auth.View)).Get("/list-template-master", h.campaigns.TemplateList)
				r.With(settingsCan(auth.View)).Get("/view-template-master/{id}", h.campaigns.TemplateView)
				r.With(settingsCan(auth.Create)).Post("/create-template-master", h.campaigns.TemplateCreate)
				r.With(settingsCan(auth.Update)).Put("/update-template-master/{id}", h.campaigns.TemplateUpdate)
				r.With(settingsCan(auth.Delete)).Delete("/delete-template-master/{id}", h.campaigns.TemplateDelete)
				r.With(settingsCan(auth.View)).Post("/preview-template-master", h.campaigns.TemplatePreview)
				r.With(leadsView, leadsUpdate).Post("/lead/send-bulk-email", h.campaigns.SendBulk)
				r.With(leadsView, leadsUpdate).Get("/lead/view-bulk-email/{id}", h.campaigns.SendView)
				// CAMPAIGNS-API-END
			})
		})

		// Import and export (app/imports, app/exports): CSV export of the lead and client
		// lists with their current query; CSV import of leads or clients, run in the background.
		// Exporting needs export, importing needs import on leads or clients (undoing: delete
		// too), and the store refuses an import of a kind the caller may not import; another
		// user's or tenant's import is not found.
		r.Group(func(r chi.Router) {
			r.Use(s.web.RequireAuth)
			r.With(s.web.Can(auth.FeatureLeads, auth.Export)).Get("/leads/export.csv", h.exports.LeadExport)
			r.With(s.web.Can(auth.FeatureLeads, auth.Export)).Get("/v1/api/lead/export-customer-lead", h.exports.LeadExport)
			r.With(s.web.Can(auth.FeatureClients, auth.Export)).Get("/clients/export.csv", h.exports.ClientExport)
			r.With(s.web.Can(auth.FeatureClients, auth.Export)).Get("/v1/api/client/export-customer-client", h.exports.ClientExport)
			importer, undoer := s.web.CanAny(importers...), s.web.CanAny(undoers...)
			r.With(importer).Get("/imports", h.imports.ImportsPage)
			r.With(importer).Get("/imports/new", h.imports.ImportNewPage)
			r.With(importer).Post("/imports/new", h.imports.ImportUploadPage)
			r.With(importer).Get("/imports/{id}", h.imports.ImportPage)
			r.With(importer).Post("/imports/{id}/run", h.imports.ImportRunPage)
			r.With(importer).Get("/imports/{id}/progress", h.imports.ImportProgress)
			r.With(importer).Get("/imports/{id}/report.csv", h.imports.ImportReport)
			r.With(undoer).Get("/imports/{id}/undo", h.imports.ImportUndoPage)
			r.With(undoer).Post("/imports/{id}/undo", h.imports.ImportUndoSubmit)
			r.With(importer).Post("/v1/api/import/create-import", h.imports.ImportCreate)
			r.With(importer).Get("/v1/api/import/list-import", h.imports.ImportList)
			r.With(importer).Get("/v1/api/import/view-import/{id}", h.imports.ImportView)
			r.With(importer).Patch("/v1/api/import/run-import/{id}", h.imports.ImportRun)
			r.With(undoer).Patch("/v1/api/import/undo-import/{id}", h.imports.ImportUndo)
			r.With(importer).Get("/v1/api/import/list-import-row/{id}", h.imports.ImportRows)
			r.With(importer).Get("/v1/api/import/report-import/{id}", h.imports.ImportReport)
		})
	})
	return r
}

func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.web.Fail(w, r, web.ErrNotFound)
}

func (s *server) handleMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	s.web.Fail(w, r, &web.Error{Status: http.StatusMethodNotAllowed, MsgID: "error.methodNotAllowed"})
}
