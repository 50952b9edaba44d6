; Inno Setup 6 script: Memory Wall installer for Windows (x64).
; Input: dist\memory-wall\ (the PyInstaller one-folder bundle, made by build-windows.ps1).
; Output: dist\memory-wall-<version>-windows-x64-setup.exe, with a Start-menu entry,
; an optional desktop shortcut and an uninstaller (Settings > Apps).
;
;   iscc /DAppVersion=0.1.0 packaging\windows\memory-wall.iss
;
; Signing (signed-ready): define a sign tool named "signtool" on the command line and the
; setup and its uninstaller are signed, e.g.
;   iscc /DAppVersion=0.1.0 /DSign ^
;        "/Ssigntool=signtool.exe sign /fd sha256 /tr http://timestamp.digicert.com /td sha256 /f C:\cert.pfx /p PASSWORD $f" ^
;        packaging\windows\memory-wall.iss
; Sign dist\memory-wall\memory-wall.exe itself before running iscc (build-windows.ps1 -SignCommand does).

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Memory Wall"
#define AppExe "memory-wall.exe"

[Setup]
; AppId identifies the app for upgrades and uninstall: never change it.
AppId={{6A1E3C52-8B4D-4F0E-9C7A-3D2B5E8F1A47}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Memory Wall developers
AppPublisherURL=https://github.com/memory-wall/memory-wall
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; per-user install without admin rights by default; the user may choose all users
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir=..\..\dist
OutputBaseFilename=memory-wall-{#AppVersion}-windows-x64-setup
SetupIconFile=..\icons\memory-wall.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
#ifdef Sign
SignTool=signtool
SignedUninstaller=yes
#endif

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "..\..\dist\memory-wall\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"
Name: "{group}\{cm:UninstallProgram,{#AppName}}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent
